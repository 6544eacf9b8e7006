"""The library's C ABI (include/tilewise/tilewise.h) through ctypes: loading, signatures, errors, one context per device.

The shared library is found at $TILEWISE_LIBRARY, else beside this package (where `pip install .` puts it).
"""
import ctypes
import functools
import operator
import os
import threading

ABI_VERSION = 3
OK, ERROR, UNSUPPORTED = 0, 1, 2
# tilewise::DType and WeightFormat codes.
BF16, FP16, FP8_E4M3 = 0, 1, 2
FORMATS = {"q8_0": 2, "int4-g32": 3, "int4-g128": 4, "fp8": 5}


class Error(RuntimeError):
    """An error the library reported: a problem it refuses, a kernel that does not build, a CUDA failure."""


class Unsupported(Error):
    """A valid request no kernel of the library serves."""


_P = ctypes.c_void_p
_I64 = ctypes.c_int64
_I32 = ctypes.c_int32
_SIGNATURES = {
    "tw_abi_version": ([], ctypes.c_int),
    "tw_last_error": ([], ctypes.c_char_p),
    "tw_last_choice": ([], ctypes.c_char_p),
    "tw_context_create": ([ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_P)], ctypes.c_int),
    "tw_context_destroy": ([_P], None),
    "tw_linear": ([_P, _I32, _I64, _I64, _I64, _P, _P, _P, _P], ctypes.c_int),
    "tw_packed_shape": ([_I32, _I64, _I64, ctypes.POINTER(_I64), ctypes.POINTER(_I64)], ctypes.c_int),
    "tw_quantize": ([_P, _I32, _I64, _I32, _I64, _I64, _P, _P, _P], ctypes.c_int),
    "tw_quantize_host": ([_P, _I32, _I64, _I32, _I64, _I64, _P, _P], ctypes.c_int),
    "tw_dequantize_host": ([_I32, _I64, _I64, _P, _P, _P], ctypes.c_int),
    "tw_dequantize": ([_I32, _I64, _I64, _P, _P, _P, _I32, _P], ctypes.c_int),
    "tw_linear_packed": ([_P, _I32, _I64, _I32, _I64, _I64, _P, _P, _P, _P, _P], ctypes.c_int),
    "tw_pack_for_tensor_cores": ([_I32, _I64, _I64, _P, _P, _P, _P, _P], ctypes.c_int),
    "tw_linear_packed_mma": ([_P, _I32, _I64, _I32, _I64, _I64, _P, _P, _P, _P, _P, _P, _P], ctypes.c_int),
}

_lib = None
_load_lock = threading.Lock()


def library_path():
    env = os.environ.get("TILEWISE_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libtilewise_c.so")


def lib():
    """The loaded C ABI, its functions typed. Raises ImportError naming where it looked."""
    global _lib
    if _lib is not None:
        return _lib
    with _load_lock:
        if _lib is None:
            path = library_path()
            try:
                loaded = ctypes.CDLL(path)
            except OSError as e:
                raise ImportError(f"tilewise: cannot load its C library {path} ({e}); build it (target tilewise_c) "
                                  "and set TILEWISE_LIBRARY, or `pip install .` from the repository") from e
            # The version first: an older library lacks later functions, and that should read as what it is.
            version = getattr(loaded, "tw_abi_version", None)
            found = version() if version else "none"
            if found != ABI_VERSION:
                raise ImportError(f"tilewise: {path} has C ABI version {found}, this package needs {ABI_VERSION}")
            for name, (args, result) in _SIGNATURES.items():
                fn = getattr(loaded, name)
                fn.argtypes, fn.restype = args, result
            _lib = loaded
        return _lib


def check(status):
    """Raises the library's error for a failed call's status."""
    if status == OK:
        return
    message = lib().tw_last_error().decode(errors="replace")
    raise (Unsupported if status == UNSUPPORTED else Error)(message)


def last_choice():
    """What the calling thread's last linear ran, as the library describes it."""
    return lib().tw_last_choice().decode(errors="replace")


_contexts = {}
_contexts_lock = threading.Lock()


def context(device_index):
    """The library context of a CUDA device, made on first use and kept for the process (shared by its streams), with
    the library's defaults: the shipped database, the per-machine one ($TILEWISE_DB) and $TILEWISE_TUNE."""
    ctx = _contexts.get(device_index)
    if ctx is not None:
        return ctx
    with _contexts_lock:
        ctx = _contexts.get(device_index)
        if ctx is None:
            handle = _P()
            check(lib().tw_context_create(device_index, None, ctypes.byref(handle)))
            ctx = _contexts[device_index] = handle
        return ctx


def packed_shape(format_code, out_features, in_features):
    """(row_bytes, scale_bytes) of a format for w[F, K]; raises Error naming the rule a shape breaks. The sizes are
    checked before the cache: 64.0 hashes as 64 does, and ctypes would cut 2**70 to 64 bits."""
    return _packed_shape(format_code, _size("out_features", out_features), _size("in_features", in_features))


def _size(name, value):
    """A size the C ABI's int64_t holds: a whole number (an int, or what operator.index takes) from 1 below 2^63."""
    try:
        size = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        size = None
    if size is None or not 0 < size < 2**63:
        raise Error(f"{name} must be a whole number from 1 below 2^63, not {value!r}")
    return size


@functools.lru_cache(maxsize=1024)
def _packed_shape(format_code, out_features, in_features):
    row_bytes, scale_bytes = _I64(), _I64()
    check(lib().tw_packed_shape(format_code, out_features, in_features, ctypes.byref(row_bytes),
                                ctypes.byref(scale_bytes)))
    return row_bytes.value, scale_bytes.value
