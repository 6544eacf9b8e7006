"""NVML through ctypes on libnvidia-ml.so.1 (the driver's own library, present wherever the driver is), so the peer
runners sample clocks on a GPU machine without the pynvml package. Standard library only.

Clocks samples SM and memory clock, power, temperature and the clock-event (throttle) reason bits every 10 ms in a
thread, plus a sample at the edges of every timed region, as tilewise's runner does (device/clocks.hpp).
"""
import ctypes
import threading
import time

CLOCK_SM, CLOCK_MEM = 1, 2  # nvmlClockType_t
TEMPERATURE_GPU = 0         # nvmlTemperatureSensors_t


class NvmlError(RuntimeError):
    pass


class Nvml:
    """The few NVML calls the runners need, on the device with the given UUID ("GPU-..."; torch's uuid, which lacks
    the prefix, is taken too). NVML numbers every GPU of the machine, torch only those CUDA_VISIBLE_DEVICES leaves
    it, so the device is found by UUID."""

    def __init__(self, uuid, library="libnvidia-ml.so.1"):
        try:
            self.lib = ctypes.CDLL(library)
        except OSError as e:
            raise NvmlError(f"cannot load {library}: {e}") from e
        self.lib.nvmlErrorString.restype = ctypes.c_char_p
        self._call("nvmlInit_v2")
        self.dev = ctypes.c_void_p()
        uuid = uuid if uuid.startswith("GPU-") else "GPU-" + uuid
        self._call("nvmlDeviceGetHandleByUUID", uuid.encode(), ctypes.byref(self.dev))
        # Renamed in CUDA 12.2's NVML; the old name stays as an alias in older drivers.
        self.reasons_call = "nvmlDeviceGetCurrentClocksEventReasons"
        if not hasattr(self.lib, self.reasons_call):
            self.reasons_call = "nvmlDeviceGetCurrentClocksThrottleReasons"

    def _call(self, name, *args):
        ret = getattr(self.lib, name)(*args)
        if ret != 0:
            raise NvmlError(f"{name}: {self.lib.nvmlErrorString(ret).decode()} ({ret})")

    def _uint(self, name, *args):
        out = ctypes.c_uint()
        self._call(name, self.dev, *args, ctypes.byref(out))
        return out.value

    def clock_mhz(self, which):
        return self._uint("nvmlDeviceGetClockInfo", which)

    def max_clock_mhz(self, which):
        return self._uint("nvmlDeviceGetMaxClockInfo", which)

    def power_w(self):
        return self._uint("nvmlDeviceGetPowerUsage") / 1000.0

    def power_limit_w(self):
        return self._uint("nvmlDeviceGetEnforcedPowerLimit") / 1000.0

    def temperature_c(self):
        return self._uint("nvmlDeviceGetTemperature", TEMPERATURE_GPU)

    def reasons(self):
        out = ctypes.c_ulonglong()
        self._call(self.reasons_call, self.dev, ctypes.byref(out))
        return out.value

    def driver(self):
        buf = ctypes.create_string_buffer(96)
        self._call("nvmlSystemGetDriverVersion", buf, ctypes.c_uint(len(buf)))
        return buf.value.decode()


class Clocks:
    """NVML sampling every 10 ms in a thread, plus samples at the edges of every timed region. Without NVML (no
    driver, or a CPU run) it samples nothing and says why: `available` is False and `reason` names the cause."""

    def __init__(self, uuid):
        self.start = time.perf_counter()
        self.samples, self.lock, self.stop = [], threading.Lock(), False
        self.nvml, self.reason = None, ""
        if uuid is None:
            self.reason = "no GPU: clocks are sampled only on a GPU run"
            return
        try:
            self.nvml = Nvml(uuid)
            self.sample()
        except NvmlError as e:
            self.nvml, self.reason = None, f"NVML: {e}"
            return
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    @property
    def available(self):
        return self.nvml is not None

    def now(self):
        return time.perf_counter() - self.start

    def sample(self):
        if not self.nvml:
            return {"t_s": self.now(), "sm_mhz": 0, "mem_mhz": 0, "power_w": 0.0, "temp_c": 0, "reasons": 0}
        n = self.nvml
        return {"t_s": self.now(), "sm_mhz": n.clock_mhz(CLOCK_SM), "mem_mhz": n.clock_mhz(CLOCK_MEM),
                "power_w": n.power_w(), "temp_c": n.temperature_c(), "reasons": n.reasons()}

    def mark(self):
        if not self.nvml:
            return self.now()
        s = self.sample()
        with self.lock:
            self.samples.append(s)
        return s["t_s"]

    def _loop(self):
        while not self.stop:
            self.mark()
            time.sleep(0.01)

    def within(self, intervals):
        with self.lock:
            return [s for s in self.samples if any(a <= s["t_s"] <= b for a, b in intervals)]

    def machine(self, cuda_version):
        """The receipt's machine fields NVML gives (zeros without NVML, which the receipt's clocks block explains)."""
        if not self.nvml:
            return {"driver": f"unknown (CUDA {cuda_version})", "sm_clock_max_mhz": 0, "mem_clock_max_mhz": 0,
                    "power_limit_w": 0.0}
        n = self.nvml
        return {"driver": f"{n.driver()} (CUDA {cuda_version})", "sm_clock_max_mhz": n.max_clock_mhz(CLOCK_SM),
                "mem_clock_max_mhz": n.max_clock_mhz(CLOCK_MEM), "power_limit_w": n.power_limit_w()}
