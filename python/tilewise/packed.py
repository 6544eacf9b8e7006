"""Packed quantized weights: the decode GEMV family's formats (kernels/quantize.cuh) held in torch tensors."""
import warnings

import torch

from . import _capi

# Along K: the group one scale covers (0: one scale per row).
_GROUP = {"q8_0": 32, "int4-g32": 32, "int4-g128": 128, "fp8": 0}
# The names the command line takes (`tilewise quantize --format`: gemv::to_string's, and its int8 and int4), each
# accepted for the package's own; a PackedWeight's format is always the package's name (tilewise.FORMATS).
_ALIASES = {"int8": "q8_0", "int4g32": "int4-g32", "int4g128": "int4-g128", "int4": "int4-g128"}


def _format_name(format):
    """The package's name of a format given by it or by the command line's; ValueError listing both otherwise."""
    if isinstance(format, str):
        if format in _capi.FORMATS:
            return format
        if format in _ALIASES:
            return _ALIASES[format]
    known = ", ".join(f"{name} (or {', '.join(a for a, n in _ALIASES.items() if n == name)})"
                      if name in _ALIASES.values() else name for name in _capi.FORMATS)
    raise ValueError(f"unknown format {format!r}; known: {known}")


_NO_WEIGHTS = ("packed weights need q and scales (rows of K), q_mma and scales_mma (the tensor-core copy), or "
               "both; got neither")


def _check_pairs(q, scales, q_mma, scales_mma):
    """Raises ValueError for half a pair of packed tensors, or for neither pair."""
    if (q is None) != (scales is None):
        raise ValueError("q and scales come together")
    if (q_mma is None) != (scales_mma is None):
        raise ValueError("q_mma and scales_mma come together")
    if q is None and q_mma is None:
        raise ValueError(_NO_WEIGHTS)


class PackedWeight:
    """W[F, K] packed in one of the formats, on the device of the weights it was made from; make one with
    tilewise.quantize. It holds `q` (uint8 [F, row_bytes]: the values in rows of K) and `scales` (fp16
    [F, K / group], or fp32 [F] for fp8); or `q_mma` and `scales_mma`, its tensor-core copy (the same values and
    scales, of the same shapes, in the order the Hopper tensor-core kernels read them: tilewise.quantize(...,
    tensor_cores=True)); or both. The pair it lacks is None. With the rows, 1..16 tokens run the gemv on them (the
    sm90 kernel on the copy where it measured faster) and more the sm90 kernel on the copy where there is one; the
    copy alone serves every token count (int4 at 1..8 tokens through a gemv that reads it where faster, the rest the
    sm90 kernel)."""

    def __init__(self, q, scales, format, out_features, in_features, q_mma=None, scales_mma=None):
        format = _format_name(format)
        try:
            row_bytes, _ = _capi.packed_shape(_capi.FORMATS[format], out_features, in_features)
        except _capi.Error as e:
            raise ValueError(str(e)) from None
        _check_pairs(q, scales, q_mma, scales_mma)
        group = _GROUP[format]
        scale_shape = (out_features, in_features // group) if group else (out_features,)
        scale_dtype = torch.float16 if group else torch.float32
        # The rows where there are some, else the copy alone, checked against the shapes the rows would have.
        q_name, scales_name, first, first_scales = (("q", "scales", q, scales) if q is not None
                                                    else ("q_mma", "scales_mma", q_mma, scales_mma))
        if first.dtype != torch.uint8 or tuple(first.shape) != (out_features, row_bytes):
            raise ValueError(f"{format} {q_name} must be uint8 of shape {(out_features, row_bytes)}, not "
                             f"{first.dtype} {tuple(first.shape)}")
        if first_scales.dtype != scale_dtype or tuple(first_scales.shape) != scale_shape:
            raise ValueError(f"{format} {scales_name} must be {scale_dtype} of shape {scale_shape}, not "
                             f"{first_scales.dtype} {tuple(first_scales.shape)}")
        if (first.device != first_scales.device or not first.is_contiguous()
                or not first_scales.is_contiguous()):
            raise ValueError(f"{q_name} and {scales_name} must be contiguous and on one device")
        if q_mma is not None and (out_features % 64 or in_features % 64):
            raise ValueError(f"the tensor-core copy is of weights whose F and K are multiples of 64, not {format} "
                             f"{out_features} x {in_features}")
        if q is not None and q_mma is not None:
            for name, t, like in (("q_mma", q_mma, q), ("scales_mma", scales_mma, scales)):
                if t.dtype != like.dtype or t.shape != like.shape or t.device != like.device or not t.is_contiguous():
                    raise ValueError(f"{name} must be a contiguous {like.dtype} tensor of shape {tuple(like.shape)} "
                                     f"on {like.device}, as {name[:-4]} is")
        self.q, self.scales, self.format = q, scales, format
        self.q_mma, self.scales_mma = q_mma, scales_mma
        self.out_features, self.in_features = out_features, in_features

    @property
    def device(self):
        return (self.q if self.q is not None else self.q_mma).device

    def to(self, device):
        def moved(t):
            return None if t is None else t.to(device)
        return PackedWeight(moved(self.q), moved(self.scales), self.format, self.out_features, self.in_features,
                            moved(self.q_mma), moved(self.scales_mma))

    def __repr__(self):
        held = ("rows" if self.q_mma is None else "tensor-core copy" if self.q is None
                else "rows and tensor-core copy")
        return (f"PackedWeight({self.format}, out_features={self.out_features}, in_features={self.in_features}, "
                f"{held}, device={self.device})")


def _dtype_code(dtype, what):
    if dtype == torch.bfloat16:
        return _capi.BF16
    if dtype == torch.float16:
        return _capi.FP16
    raise ValueError(f"{what} must be bfloat16 or float16, not {dtype}")


# What the command line's `tilewise quantize` calls NOT FAITHFUL: gemv::find_hazards (src/families/gemv/quantize.cpp),
# which the C ABI does not expose, mirrored here on torch tensors; keep the two in step. Per row, and per group of
# _GROUP[format] weights along K (fp8: the whole row): a weight that is not finite (a NaN comes back as 0 in Q8_0 and
# int4, an Inf turns its group or fp8 row into NaN); in a group of finite weights, the fp32 scale max|w| / _STEPS
# that rounds to fp16 Inf (overflow: the group comes back as Inf or NaN), or, max|w| > 0, to under fp16's smallest
# normal 2^-14 (underflow: the group keeps fewer bits, or comes back as 0). quantize refuses the first two and warns
# of the third, which costs precision gradually rather than making a weight wrong.
_STEPS = {"q8_0": 127.0, "int4-g32": 7.0, "int4-g128": 7.0}
_FP16_INF_FROM = 65520.0  # an fp32 value at or past this rounds to fp16 Inf (65504 is the largest finite)
_FP16_MIN_NORMAL = 2.0 ** -14
_HAZARD_CHUNK = 1 << 24  # weights looked at a time: bounds the scratch the checks take on the weights' device


def _hazard_masks(w, format):
    """For rows of weights w[R, K]: (not finite [R, K], overflowed [R, groups], underflowed [R, groups]); None for the
    group masks of fp8, whose fp32 scale find_hazards does not check."""
    R, K = w.shape
    group = _GROUP[format] or K
    a = w.abs().reshape(R, K // group, group)  # |w| and its maximum are exact in bf16 and fp16
    bad = ~torch.isfinite(a)
    if not _GROUP[format]:
        return bad.reshape(R, K), None, None
    finite = ~bad.any(-1)
    amax = a.amax(-1).float()
    scale = (amax / _STEPS[format]).half().float()  # the fp32 scale as find_hazards computes it, rounded to fp16
    overflowed = finite & torch.isinf(scale)
    underflowed = finite & (amax > 0) & (scale < _FP16_MIN_NORMAL)
    return bad.reshape(R, K), overflowed, underflowed


def _check_faithful(w, format):
    """Raises ValueError where quantizing w in `format` would not give the weights back (not finite, or a scale past
    fp16's range); warns where a group's scale is under fp16's normal range."""
    F, K = w.shape
    rows = max(1, _HAZARD_CHUNK // K)
    counts = torch.zeros(3, dtype=torch.int64, device=w.device)
    for r in range(0, F, rows):
        for i, mask in enumerate(_hazard_masks(w[r:r + rows], format)):
            if mask is not None:
                counts[i] += mask.sum()
    nonfinite, overflowed, underflowed = counts.tolist()  # one synchronization
    if not (nonfinite or overflowed or underflowed):
        return

    def first(which):  # "row r, column c" of the first hazard of a kind, in row-major order
        for r in range(0, F, rows):
            mask = _hazard_masks(w[r:r + rows], format)[which]
            if bool(mask.any()):
                row, col = torch.nonzero(mask)[0].tolist()
                return f"row {r + row}, column {col * (_GROUP[format] if which else 1)}"

    group, steps = _GROUP[format], _STEPS.get(format)
    problems = []
    if nonfinite:
        problems.append(f"{nonfinite} weight{'s' if nonfinite > 1 else ''} not finite (NaN or Inf; the first at "
                        f"{first(0)})")
    if overflowed:
        problems.append(f"{overflowed} group{'s' if overflowed > 1 else ''} of {group} whose fp16 scale, max|w| / "
                        f"{steps:g}, is past fp16's largest 65504 (max|w| must stay under about "
                        f"{_FP16_INF_FROM * steps:.4g}; the first at {first(1)})")
    if problems:
        raise ValueError(f"{format} cannot hold these weights: {'; '.join(problems)}. They would not come back as "
                         f"they went in (the command line's `tilewise quantize` calls them NOT FAITHFUL)")
    warnings.warn(f"{underflowed} group{'s' if underflowed > 1 else ''} of {group} {format} weights with a max|w| "
                  f"under about {_FP16_MIN_NORMAL * steps:.2g}, whose fp16 scale, max|w| / {steps:g}, falls under "
                  f"fp16's normal range: they keep fewer bits, or come back as 0 (the first at {first(2)}; the "
                  f"command line's `tilewise quantize` calls them NOT FAITHFUL)", stacklevel=3)


def quantize(w, format, tensor_cores=False, rows=True):
    """Packs bf16/fp16 weights w[F, K] (nn.Linear's weight) in `format`: "q8_0", "int4-g32", "int4-g128" or "fp8" (or
    the command line's names for them: "int8", "int4g32", "int4g128", "int4").

    On CUDA the library's GPU quantizer runs on the current stream and synchronizes it (this is for load time); on the
    CPU its CPU reference, which gives the same bits. With tensor_cores (CUDA, F and K multiples of 64) the weights
    also get their tensor-core copy (twice the packed bytes); with rows=False as well they keep that copy alone (the
    packed bytes once), which serves every token count. Raises ValueError for rows=False without tensor_cores, for a
    format or shape it cannot take, and for weights the format cannot give back (the command line's NOT FAITHFUL): a
    weight that is not finite, or a group whose fp16 scale would overflow (max|w| past about 8.3e6 in q8_0, 4.6e5 in
    int4). Warns (UserWarning) of a group whose scale falls under fp16's normal range (max|w| under about 7.8e-3 in
    q8_0, 4.3e-4 in int4): its weights keep fewer bits."""
    if not rows and not tensor_cores:
        raise ValueError("rows=False keeps the tensor-core copy alone, which needs tensor_cores=True")
    format = _format_name(format)
    if not isinstance(w, torch.Tensor) or w.dim() != 2:
        raise ValueError(f"quantize takes a 2-D weight tensor w[F, K], not {type(w).__name__} "
                         f"{tuple(w.shape) if isinstance(w, torch.Tensor) else ''}")
    dtype = _dtype_code(w.dtype, "the weights")
    F, K = w.shape
    # A single row's stride is torch's to choose (a transposed column has 1); the rows of several must not overlap.
    row_stride = K if F == 1 else w.stride(0)
    if (K > 1 and w.stride(1) != 1) or row_stride < K:
        raise ValueError(f"the weights' rows must be contiguous and apart (strides {tuple(w.stride())} for {F} x {K}); "
                         f"call .contiguous()")
    if tensor_cores and (not w.is_cuda or F % 64 or K % 64):
        raise ValueError(f"the tensor-core copy is made on CUDA for weights whose F and K are multiples of 64, "
                         f"not {format} {F} x {K} on {w.device}")
    if not w.is_cuda and w.device.type != "cpu":
        raise ValueError(f"quantize runs on CUDA or CPU tensors, not {w.device}")
    code = _capi.FORMATS[format]
    try:
        row_bytes, scale_bytes = _capi.packed_shape(code, F, K)
    except _capi.Error as e:
        raise ValueError(str(e)) from None
    w = w.detach()
    _check_faithful(w, format)
    group = _GROUP[format]
    q = torch.empty((F, row_bytes), dtype=torch.uint8, device=w.device)
    scales = torch.empty((F, K // group) if group else (F,), dtype=torch.float16 if group else torch.float32,
                         device=w.device)
    if w.is_cuda:
        with torch.cuda.device(w.device):
            stream = torch.cuda.current_stream(w.device).cuda_stream
            _capi.check(_capi.lib().tw_quantize(w.data_ptr(), dtype, row_stride, code, F, K, q.data_ptr(),
                                                scales.data_ptr(), stream))
    else:
        _capi.check(_capi.lib().tw_quantize_host(w.data_ptr(), dtype, row_stride, code, F, K, q.data_ptr(),
                                                 scales.data_ptr()))
    if not tensor_cores:
        return PackedWeight(q, scales, format, F, K)
    q_mma, scales_mma = torch.empty_like(q), torch.empty_like(scales)
    with torch.cuda.device(w.device):
        status = _capi.lib().tw_pack_for_tensor_cores(code, F, K, q.data_ptr(), scales.data_ptr(), q_mma.data_ptr(),
                                                       scales_mma.data_ptr(),
                                                       torch.cuda.current_stream(w.device).cuda_stream)
    try:
        _capi.check(status)
    except _capi.Error as e:
        raise ValueError(str(e)) from None
    if not rows:
        # Dropped here, q and scales go back to torch's caching allocator, which hands their memory only to later work
        # on this same current stream, queued after the pack kernel that reads them.
        return PackedWeight(None, None, format, F, K, q_mma, scales_mma)
    return PackedWeight(q, scales, format, F, K, q_mma, scales_mma)


def dequantize(pw, dtype=torch.float32):
    """The weights pw's kernels compute with, as a dense tensor [F, K] of `dtype` on pw's device: each value times its
    scale in fp32 (as the library's reference computes them), then rounded to `dtype`. On CUDA to bfloat16 or float16
    (real tensors, outside torch.compile's tracing), one kernel of the library's on the current stream: the same
    values as the torch ops give, a NaN's bits aside. A copy alone is first put back in rows of K by torch ops
    (_from_tensor_core_order). Raises ValueError for a dtype that is not floating-point (an integer one would wrap the
    values)."""
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise ValueError(f"dequantize returns the weights as a floating-point dtype (torch.float32, torch.bfloat16, "
                         f"torch.float16, ...), not {dtype!r}")
    q, scales = _rows_of(pw)
    if (q.is_cuda and dtype in (torch.bfloat16, torch.float16) and type(q) is torch.Tensor
            and not torch.compiler.is_compiling()):
        out = torch.empty((pw.out_features, pw.in_features), dtype=dtype, device=pw.device)
        with torch.cuda.device(pw.device):
            _capi.check(_capi.lib().tw_dequantize(_capi.FORMATS[pw.format], pw.out_features, pw.in_features,
                                                  q.data_ptr(), scales.data_ptr(), out.data_ptr(),
                                                  _dtype_code(dtype, "dtype"),
                                                  torch.cuda.current_stream(pw.device).cuda_stream))
        return out
    return _dequantized(q, scales, pw.format, pw.out_features, pw.in_features, dtype)


def _rows_of(pw):
    """pw's q and scales in rows of K: its own, or those of its tensor-core copy put back."""
    if pw.q is not None:
        return pw.q, pw.scales
    return _from_tensor_core_order(pw.q_mma, pw.scales_mma, pw.format, pw.out_features, pw.in_features)


def _from_tensor_core_order(q_mma, scales_mma, format, F, K):
    """The q and scales in rows of K (kernels/quantize.cuh) of a tensor-core copy in "mma order, version 1"
    (kernels/sm90/packed.h, written by kernels/sm90/packed_order.h): the inverse of that order, as torch ops (on any
    device, and traceable). Each 64 x 64 block is taken apart into the indices its bytes are laid out by: warp w =
    t / 32, a = lane / 4, b = lane % 4 of thread t, the 16-k step s and value j of its fragment, whose row in the
    block is 16 w + a + 8 (j / 2 % 2) and column 16 s + 2 b + j % 2 + 8 (j / 4)."""
    blocks_n, blocks_k = F // 64, K // 64
    if format in ("q8_0", "fp8"):
        # A byte a value: byte (s / 2, w, a, b, s % 2, j / 4, j / 2 % 2, j % 2) of a block of 4096.
        q = (q_mma.reshape(blocks_n, blocks_k, 2, 4, 8, 4, 2, 2, 2, 2)
             .permute(0, 3, 8, 4, 1, 2, 6, 7, 5, 9).reshape(F, K))
    else:
        # int4: the word (w, a, b, s) of a block of 512 holds value j in nibble 4 (j % 2) + 2 (j / 4) + j / 2 % 2,
        # nibble p of a little-endian word in byte p / 2 (the low half for even p); rows keep value 2i in the low
        # nibble of byte i.
        nibbles = torch.stack((q_mma & 0xF, q_mma >> 4), dim=-1).reshape(blocks_n, blocks_k, 4, 8, 4, 4, 2, 2, 2)
        values = nibbles.permute(0, 2, 8, 3, 1, 5, 7, 4, 6).reshape(F, K)
        q = values[:, 0::2] | (values[:, 1::2] << 4)
    if format == "fp8":  # the row scales keep their order
        return q.contiguous(), scales_mma
    groups = K // _GROUP[format]  # scales [F / 64][groups][64] back to [F][groups]
    scales = scales_mma.reshape(blocks_n, groups, 64).transpose(1, 2).reshape(F, groups)
    # Contiguous, as the library reads them: a reshape may return a strided view (one block of rows, say).
    return q.contiguous(), scales.contiguous()


def _dequantized(q, scales, format, F, K, dtype):
    """dequantize on the tensors of packed weights already checked (as a traced backward holds them)."""
    if format == "fp8":
        values = q.view(torch.float8_e4m3fn).float() * scales.float()[:, None]
        return values.to(dtype)
    group = _GROUP[format]
    if format == "q8_0":
        values = q.view(torch.int8).float()
    else:  # int4: element 2j in the low nibble of byte j, stored as q + 8
        nibbles = torch.stack((q & 0xF, q >> 4), dim=-1).reshape(F, K)
        values = nibbles.float() - 8
    values = values.view(F, K // group, group) * scales.float()[:, :, None]
    return values.view(F, K).to(dtype)


def dequantize_reference(pw):
    """The library's CPU reference of dequantize (fp32, pw on the CPU; a copy alone put back in rows of K first):
    what the tests hold dequantize to, bit for bit."""
    out = torch.empty((pw.out_features, pw.in_features), dtype=torch.float32)
    q, scales = (t.cpu() for t in _rows_of(pw))
    _capi.check(_capi.lib().tw_dequantize_host(_capi.FORMATS[pw.format], pw.out_features, pw.in_features,
                                               q.data_ptr(), scales.data_ptr(), out.data_ptr()))
    return out
