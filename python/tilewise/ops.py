"""The torch ops (namespace `tilewise`) over the C ABI, with fake implementations for torch.compile, and the public
linear().

Each op runs on torch.cuda.current_stream() of its input's device and takes its output from torch's caching
allocator; once the library has built a shape's kernel for that stream, nothing on its path allocates device memory or
synchronizes, so it can be captured in a CUDA graph."""
from typing import Optional

import torch

from . import _capi
from .packed import PackedWeight, _check_pairs, _dequantized, _dtype_code, _from_tensor_core_order, dequantize

MAX_PACKED_TOKENS = 16  # the gemv family's token range; more run the sm90 kernel on the weights' tensor-core copy
#                         where they have one, else the dequantized 16-bit path
_FORMAT_NAMES = {code: name for name, code in _capi.FORMATS.items()}
_ALIGNMENT = 16  # what every kernel family reads its operands at (TMA, vector loads)


def _require(cond, message):
    """Raises ValueError(message) where cond is false; message may be a function that makes it, so a call that passes
    formats nothing (these checks run on every call)."""
    if not cond:
        raise ValueError(message() if callable(message) else message)


def _check_tensor(t, name, dims, dtypes, on_device):
    _require(isinstance(t, torch.Tensor), lambda: f"{name} must be a tensor, not {type(t).__name__}")
    counts = f"{dims.start} to {dims.stop - 1}" if isinstance(dims, range) else " or ".join(map(str, dims))
    _require(t.dim() in dims, lambda: f"{name} must have {counts} dimensions, not shape {tuple(t.shape)}")
    _require(t.dtype in dtypes, lambda: f"{name} must be {' or '.join(map(str, dtypes))}, not {t.dtype}")
    if on_device:
        _require(t.is_contiguous(), lambda: f"{name} must be contiguous (strides {t.stride()}); call .contiguous()")
        _require(t.is_cuda, lambda: f"{name} must be a CUDA tensor, not on {t.device}: tilewise runs on the GPU")


def _check_linear(x, w, bias, x_dtypes, out_dtype, on_device):
    """The rules every linear op holds its inputs to (the fake ones too, so torch.compile reports them)."""
    _check_tensor(x, "x", range(1, 64), x_dtypes, on_device)
    _check_tensor(w, "w", (2,), (x.dtype,), on_device)
    _require(x.shape[-1] == w.shape[1] and w.shape[1] > 0 and w.shape[0] > 0,
             lambda: f"x[..., K] and w[F, K] must share K > 0 and have F > 0: x {tuple(x.shape)}, w {tuple(w.shape)}")
    if bias is not None:
        _check_tensor(bias, "bias", (1,), (out_dtype,), on_device)
        _require(bias.shape[0] == w.shape[0], lambda: f"bias must have F = {w.shape[0]} elements, not {bias.shape[0]}")
    if on_device:
        devices = {t.device for t in (x, w, bias) if t is not None}
        _require(len(devices) == 1, lambda: f"x, w and bias must be on one device, not {sorted(map(str, devices))}")


def _stream(device):
    return torch.cuda.current_stream(device).cuda_stream


def _aligned(x):
    """x itself, or a copy where its data is not 16-byte aligned (a slice at an odd offset): the kernels read 16 bytes
    at a time, and a fresh allocation from torch is aligned."""
    return x if x.data_ptr() % _ALIGNMENT == 0 else x.clone()


def _run_dense(x, w, dtype_code, out_dtype):
    K, F = w.shape[1], w.shape[0]
    tokens = x.numel() // K
    y = torch.empty((*x.shape[:-1], F), dtype=out_dtype, device=x.device)
    if tokens:
        x = _aligned(x)
        _capi.check(_capi.lib().tw_linear(_capi.context(x.device.index), dtype_code, tokens, F, K, x.data_ptr(),
                                          w.data_ptr(), y.data_ptr(), _stream(x.device)))
    return y


def _dense(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor]) -> torch.Tensor:
    _check_linear(x, w, bias, (torch.bfloat16, torch.float16), x.dtype, True)
    y = _run_dense(x, w, _dtype_code(x.dtype, "x"), x.dtype)
    return y.add_(bias) if bias is not None else y


_linear = torch.library.custom_op("tilewise::linear", _dense, mutates_args=())


@_linear.register_fake
def _(x, w, bias):
    _check_linear(x, w, bias, (torch.bfloat16, torch.float16), x.dtype, False)
    return x.new_empty((*x.shape[:-1], w.shape[0]))


def _fp8(x: torch.Tensor, w: torch.Tensor, x_scale: torch.Tensor, w_scale: torch.Tensor,
         bias: Optional[torch.Tensor]) -> torch.Tensor:
    _check_linear(x, w, bias, (torch.float8_e4m3fn,), torch.bfloat16, True)
    _check_scales(x_scale, w_scale, x.device)
    y = _run_dense(x, w, _capi.FP8_E4M3, torch.bfloat16)
    y.mul_((x_scale * w_scale).reshape(()))  # one element of any shape, so y keeps its own
    return y.add_(bias) if bias is not None else y


def _check_scales(x_scale, w_scale, device):
    for name, s in (("x_scale", x_scale), ("w_scale", w_scale)):
        _require(isinstance(s, torch.Tensor) and s.numel() == 1 and s.dtype == torch.float32,
                 lambda: f"{name} must be a float32 tensor of one element")
        _require(device is None or s.device == device, lambda: f"{name} must be on {device}, not {s.device}")


_linear_fp8 = torch.library.custom_op("tilewise::linear_fp8", _fp8, mutates_args=())


@_linear_fp8.register_fake
def _(x, w, x_scale, w_scale, bias):
    _check_linear(x, w, bias, (torch.float8_e4m3fn,), torch.bfloat16, False)
    _check_scales(x_scale, w_scale, None)
    return x.new_empty((*x.shape[:-1], w.shape[0]), dtype=torch.bfloat16)


def _check_packed_x(x, q, on_device):
    _check_tensor(x, "x", range(1, 64), (torch.bfloat16, torch.float16), on_device)
    if on_device:
        _require(q.device == x.device, lambda: f"the packed weights must be on x's device {x.device}, not {q.device}")


def _packed_of(x, q, scales, format, on_device, q_mma=None, scales_mma=None):
    """The PackedWeight the op's arguments describe, checked against x; None where the sizes are symbolic (dynamic
    tracing), for the real call to check."""
    _require(format in _FORMAT_NAMES, lambda: f"unknown format code {format}; known: {sorted(_FORMAT_NAMES)}")
    _check_pairs(q, scales, q_mma, scales_mma)
    name, first = ("q", q) if q is not None else ("q_mma", q_mma)  # the copy alone where there are no rows
    _require(first.dim() == 2, lambda: f"{name} must be 2-D [F, row_bytes], not shape {tuple(first.shape)}")
    _check_packed_x(x, first, on_device)
    if not (isinstance(first.shape[0], int) and isinstance(x.shape[-1], int)):
        return None
    try:
        return PackedWeight(q, scales, _FORMAT_NAMES[format], first.shape[0], x.shape[-1], q_mma, scales_mma)
    except (_capi.Error, ValueError) as e:
        raise ValueError(f"x[..., K] with K = {x.shape[-1]} does not fit packed {_FORMAT_NAMES[format]} weights: "
                         f"{e}") from None


def _packed(x: torch.Tensor, q: Optional[torch.Tensor], scales: Optional[torch.Tensor], format: int,
            bias: Optional[torch.Tensor], q_mma: Optional[torch.Tensor] = None,
            scales_mma: Optional[torch.Tensor] = None) -> torch.Tensor:
    return _run_packed(x, _packed_of(x, q, scales, format, True, q_mma, scales_mma), bias)


def _run_packed(x, pw, bias):
    """linear on packed weights already checked, x checked against them."""
    if bias is not None:
        _check_tensor(bias, "bias", (1,), (x.dtype,), True)
        _require(bias.shape[0] == pw.out_features, lambda: f"bias must have F = {pw.out_features} elements")
    K, F = pw.in_features, pw.out_features
    _require(x.shape[-1] == K,
             lambda: f"x[..., K] with K = {x.shape[-1]} does not fit packed {pw.format} weights of K = {K}")
    tokens = x.numel() // K
    if tokens > MAX_PACKED_TOKENS and pw.q_mma is None:  # the 16-bit path on a scratch copy of the weights
        return _dense(x, dequantize(pw, x.dtype), bias)
    y = torch.empty((*x.shape[:-1], F), dtype=x.dtype, device=x.device)
    if tokens:
        x = _aligned(x)
        # The library picks the kernel from the pairs it is given; a pair pw lacks goes as NULL.
        q, scales, q_mma, scales_mma = (None if t is None else t.data_ptr()
                                        for t in (pw.q, pw.scales, pw.q_mma, pw.scales_mma))
        _capi.check(_capi.lib().tw_linear_packed_mma(
            _capi.context(x.device.index), _dtype_code(x.dtype, "x"), tokens, _capi.FORMATS[pw.format], F, K,
            x.data_ptr(), q, scales, q_mma, scales_mma, y.data_ptr(), _stream(x.device)))
    return y.add_(bias) if bias is not None else y


_linear_packed = torch.library.custom_op("tilewise::linear_packed", _packed, mutates_args=())


@_linear_packed.register_fake
def _(x, q, scales, format, bias, q_mma=None, scales_mma=None):
    _packed_of(x, q, scales, format, False, q_mma, scales_mma)
    return x.new_empty((*x.shape[:-1], (q if q is not None else q_mma).shape[0]))


def _dense_backward(ctx, grad):
    x, w = ctx.saved_tensors
    grad_x = grad @ w.to(grad.dtype) if ctx.needs_input_grad[0] else None
    flat = grad.reshape(-1, grad.shape[-1])
    grad_w = flat.t() @ x.reshape(-1, x.shape[-1]) if ctx.needs_input_grad[1] else None
    grad_bias = flat.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
    return grad_x, grad_w, grad_bias


def _dense_setup(ctx, inputs, output):
    x, w, bias = inputs
    ctx.save_for_backward(x, w)
    ctx.has_bias = bias is not None


def _packed_backward(ctx, grad):
    x, q, scales = ctx.saved_tensors
    format, F, K = _FORMAT_NAMES[ctx.format], q.shape[0], x.shape[-1]
    if ctx.tensor_core_order:  # the copy alone: its values put back in rows of K, exactly
        q, scales = _from_tensor_core_order(q, scales, format, F, K)
    w = _dequantized(q, scales, format, F, K, grad.dtype)
    grad_x = grad @ w if ctx.needs_input_grad[0] else None
    grad_bias = grad.reshape(-1, grad.shape[-1]).sum(0) if ctx.has_bias and ctx.needs_input_grad[4] else None
    return grad_x, None, None, None, grad_bias, None, None


def _packed_setup(ctx, inputs, output):
    x, q, scales, format, bias, q_mma, scales_mma = inputs
    ctx.tensor_core_order = q is None
    ctx.save_for_backward(x, *((q_mma, scales_mma) if q is None else (q, scales)))
    ctx.format, ctx.has_bias = format, bias is not None


# Backward runs torch's own matmuls (on the dequantized weights for packed ones, which are not trained): tilewise is
# an inference library, but gradients through a patched module must still be right.
_linear.register_autograd(_dense_backward, setup_context=_dense_setup)
_linear_packed.register_autograd(_packed_backward, setup_context=_packed_setup)


def linear(x, w, bias=None, *, x_scale=None, w_scale=None):
    """nn.Linear's y = x w^T + bias on tilewise's kernels.

    x[..., K] and w[F, K] on one CUDA device, contiguous; returns y[..., F].
    - bf16 or fp16 x and w: the library's selection (its tuned database, its own families where measured faster,
      else cuBLASLt's default). bias of their dtype, added by torch after the GEMM.
    - torch.float8_e4m3fn x and w with x_scale and w_scale (float32, one element each): y = (x w^T) x_scale w_scale
      in bf16 (K a multiple of 16, F of 8); the scales and bias are applied by torch after the GEMM.
    - w a tilewise.PackedWeight (tilewise.quantize), x bf16 or fp16: 1..16 tokens (x.numel() / K) run the gemv
      family's kernel on the packed weights (the sm90 kernel on the tensor-core copy where w has one and it measured
      faster: tilewise.last_choice() names it); more tokens run the sm90 kernel on the weights' tensor-core copy
      where w has one (tilewise.quantize(..., tensor_cores=True)), else the weights are dequantized into a scratch
      tensor from torch's caching allocator and the 16-bit path runs on it. w holding the copy alone
      (tilewise.quantize(..., tensor_cores=True, rows=False)): int4 at 1..8 tokens runs a gemv that reads the copy
      where it measured faster, everything else the sm90 kernel on it.
    Raises ValueError for a wrong dtype, shape, device or a non-contiguous tensor, tilewise.Error when the library
    refuses (its message says why)."""
    _require(isinstance(x, torch.Tensor), lambda: f"x must be a tensor, not {type(x).__name__}")
    _require(bias is None or isinstance(bias, torch.Tensor),
             lambda: f"bias must be a tensor or None, not {type(bias).__name__}")
    if isinstance(w, PackedWeight):
        _require(x_scale is None and w_scale is None, "x_scale and w_scale are for fp8 x and w, not packed weights")
        if _direct(x, w.q, w.scales, w.q_mma, w.scales_mma, bias):  # w was checked when made; x against it here
            _check_packed_x(x, w.q if w.q is not None else w.q_mma, True)
            return _run_packed(x, w, bias)
        return torch.ops.tilewise.linear_packed(x, w.q, w.scales, _capi.FORMATS[w.format], bias, w.q_mma,
                                                w.scales_mma)
    if isinstance(w, torch.Tensor) and w.dtype == torch.float8_e4m3fn:
        _require(x_scale is not None and w_scale is not None, "fp8 x and w need x_scale and w_scale")
        args = (x, w, x_scale, w_scale, bias)
        return (_fp8 if _direct(*args) else torch.ops.tilewise.linear_fp8)(*args)
    _require(isinstance(w, torch.Tensor),
             lambda: f"w must be a tensor or a tilewise.PackedWeight, not {type(w).__name__}")
    _require(x_scale is None and w_scale is None, "x_scale and w_scale are for fp8 x and w")
    return (_dense if _direct(x, w, bias) else torch.ops.tilewise.linear)(x, w, bias)


def _direct(*args):
    """Whether a call can run the op's implementation itself: eager (not traced by torch.compile), plain CUDA tensors
    (meta and fake ones take the op's fake implementation), no gradient to record. The dispatcher's round trip is
    host time an eagerly launched decode step of small GEMMs waits on (docs/notes/2026-12-03-linear-host-path.md)."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    return (not torch.compiler.is_compiling() and all(type(t) is torch.Tensor and t.is_cuda for t in tensors)
            and not (torch.is_grad_enabled() and any(t.requires_grad for t in tensors)))
