#include "device/clocks.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>

namespace tilewise::device {

// The part of NVML's C ABI this tool uses (types and constants as nvml.h defines them).
namespace nvml_abi {
using Return = int;  // nvmlReturn_t; NVML_SUCCESS = 0
using Device = void*;
constexpr int clock_sm = 1, clock_mem = 2;  // nvmlClockType_t
constexpr int temperature_gpu = 0;          // nvmlTemperatureSensors_t
}  // namespace nvml_abi

struct Nvml::Api {
  using R = nvml_abi::Return;
  using D = nvml_abi::Device;
  R (*init)() = nullptr;
  R (*shutdown)() = nullptr;
  const char* (*error_string)(R) = nullptr;
  R (*by_pci)(const char*, D*) = nullptr;
  R (*clock)(D, int, unsigned*) = nullptr;
  R (*max_clock)(D, int, unsigned*) = nullptr;
  R (*power)(D, unsigned*) = nullptr;
  R (*power_limit)(D, unsigned*) = nullptr;
  R (*temperature)(D, int, unsigned*) = nullptr;
  R (*reasons)(D, unsigned long long*) = nullptr;
  R (*driver)(char*, unsigned) = nullptr;
};

Nvml::Nvml(const std::string& pci_bus_id) : api_(std::make_unique<Api>()) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    why_ = fmt::format("cannot load libnvidia-ml.so.1 ({})", dlerror());
    return;
  }
  auto load = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library_, name));
    return fn != nullptr;
  };
  Api& a = *api_;
  bool ok = load(a.init, "nvmlInit_v2") && load(a.shutdown, "nvmlShutdown") && load(a.error_string, "nvmlErrorString") &&
            load(a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2") && load(a.clock, "nvmlDeviceGetClockInfo") &&
            load(a.max_clock, "nvmlDeviceGetMaxClockInfo") && load(a.power, "nvmlDeviceGetPowerUsage") &&
            load(a.power_limit, "nvmlDeviceGetEnforcedPowerLimit") && load(a.temperature, "nvmlDeviceGetTemperature") &&
            load(a.driver, "nvmlSystemGetDriverVersion");
  // Renamed from "throttle" to "clocks event" reasons in newer drivers; both names carry the same bits.
  ok = ok && (load(a.reasons, "nvmlDeviceGetCurrentClocksEventReasons") ||
              load(a.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!ok) {
    why_ = "libnvidia-ml.so.1 lacks a function this tool needs";
    return;
  }
  if (const auto r = a.init(); r != 0) {
    why_ = fmt::format("nvmlInit failed: {}", a.error_string(r));
    return;
  }
  nvml_abi::Device d = nullptr;
  if (const auto r = a.by_pci(pci_bus_id.c_str(), &d); r != 0) {
    why_ = fmt::format("NVML cannot find the device at PCI {}: {}", pci_bus_id, a.error_string(r));
    a.shutdown();
    return;
  }
  device_ = d;
}

Nvml::~Nvml() {
  if (device_) api_->shutdown();
  if (library_) dlclose(library_);
}

receipt::ClockSample Nvml::sample(double t_s) const {
  receipt::ClockSample s;
  s.t_s = t_s;
  if (!device_) return s;
  unsigned v = 0;
  if (api_->clock(device_, nvml_abi::clock_sm, &v) == 0) s.sm_mhz = int(v);
  if (api_->clock(device_, nvml_abi::clock_mem, &v) == 0) s.mem_mhz = int(v);
  if (api_->power(device_, &v) == 0) s.power_w = v / 1000.0;
  if (api_->temperature(device_, nvml_abi::temperature_gpu, &v) == 0) s.temp_c = int(v);
  unsigned long long reasons = 0;
  if (api_->reasons(device_, &reasons) == 0) s.reasons = reasons;
  return s;
}

std::string Nvml::driver_version() const {
  char buf[96] = {};
  if (!device_ || api_->driver(buf, sizeof buf) != 0) return {};
  return buf;
}

int Nvml::max_sm_clock_mhz() const {
  unsigned v = 0;
  return device_ && api_->max_clock(device_, nvml_abi::clock_sm, &v) == 0 ? int(v) : 0;
}

int Nvml::max_mem_clock_mhz() const {
  unsigned v = 0;
  return device_ && api_->max_clock(device_, nvml_abi::clock_mem, &v) == 0 ? int(v) : 0;
}

double Nvml::power_limit_w() const {
  unsigned v = 0;
  return device_ && api_->power_limit(device_, &v) == 0 ? v / 1000.0 : 0.0;
}

ClockSampler::ClockSampler(const Nvml& nvml, std::chrono::milliseconds period)
    : nvml_(nvml), period_(period), start_(std::chrono::steady_clock::now()) {
  if (nvml_.available()) thread_ = std::thread([this] { loop(); });
}

ClockSampler::~ClockSampler() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

double ClockSampler::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

receipt::ClockSample ClockSampler::sample_now() const { return nvml_.sample(now()); }

double ClockSampler::mark() {
  const receipt::ClockSample s = sample_now();
  if (nvml_.available()) {
    std::lock_guard lock(mutex_);
    samples_.push_back(s);
  }
  return s.t_s;
}

void ClockSampler::loop() {
  auto next = std::chrono::steady_clock::now();
  while (!stop_) {
    receipt::ClockSample s = sample_now();
    {
      std::lock_guard lock(mutex_);
      samples_.push_back(s);
    }
    next += period_;
    std::this_thread::sleep_until(next);
  }
}

std::vector<receipt::ClockSample> ClockSampler::samples_within(
    const std::vector<std::pair<double, double>>& intervals) const {
  std::lock_guard lock(mutex_);
  std::vector<receipt::ClockSample> out;
  for (const receipt::ClockSample& s : samples_)
    for (auto [begin, end] : intervals)
      if (s.t_s >= begin && s.t_s <= end) {
        out.push_back(s);
        break;
      }
  return out;
}

}  // namespace tilewise::device
