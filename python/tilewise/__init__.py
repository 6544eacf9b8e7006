"""tilewise for PyTorch: nn.Linear on tilewise's kernels (python/README.md).

    import tilewise
    y = tilewise.linear(x, w, bias=None)                 # bf16/fp16; fp8 with x_scale, w_scale
    pw = tilewise.quantize(w, "int4-g128")               # or "int4-g32", "q8_0", "fp8" (or the CLI's int4g128, ...)
    y = tilewise.linear(x, pw, bias=None)
    tilewise.patch(model, format=None)                   # swaps nn.Linear layers in place

The ops are registered with torch.library as torch.ops.tilewise.linear, linear_fp8 and linear_packed."""
from ._capi import Error, Unsupported, last_choice
from .nn import Linear, patch
from .ops import MAX_PACKED_TOKENS, linear
from .packed import PackedWeight, dequantize, dequantize_reference, quantize

FORMATS = ("q8_0", "int4-g32", "int4-g128", "fp8")

__all__ = ["Error", "Unsupported", "Linear", "PackedWeight", "FORMATS", "MAX_PACKED_TOKENS", "dequantize",
           "dequantize_reference", "last_choice", "linear", "patch", "quantize"]
