"""tilewise.Linear, an nn.Linear on tilewise.linear, and patch(), which swaps a model's nn.Linear layers for it."""
import torch

from .ops import linear
from .packed import PackedWeight, quantize


class Linear(torch.nn.Module):
    """nn.Linear's forward on tilewise.linear: 16-bit weights as they are (`weight`), or packed in a format
    (tilewise.quantize's: buffers `q` and `scales` for the rows of K, `q_mma` and `scales_mma` for the tensor-core
    copy, each pair where the packed weights hold it). Made by patch() or from_linear(). A model's dtype cast
    (.half(), .to(torch.bfloat16)) leaves packed weights as they are; a move to another device moves them."""

    _PACKED = ("q", "scales", "q_mma", "scales_mma")

    def __init__(self, in_features, out_features, weight=None, packed=None, bias=None):
        super().__init__()
        if (weight is None) == (packed is None):
            raise ValueError("a tilewise.Linear holds either 16-bit weights or packed ones")
        self.in_features, self.out_features = in_features, out_features
        self.format = packed.format if packed is not None else None
        self.weight = weight
        if packed is not None:
            for name in self._PACKED:  # a pair the weights lack is no buffer, so state_dict holds what they hold
                if getattr(packed, name) is not None:
                    self.register_buffer(name, getattr(packed, name))
        self.bias = bias

    @classmethod
    def from_linear(cls, layer, format=None, tensor_cores=False, rows=True):
        """A tilewise.Linear computing what `layer` (an nn.Linear) does, sharing its weight and bias, or with its
        weight packed in `format` (tilewise.quantize's tensor_cores adds the tensor-core copy; rows=False with it
        keeps that copy alone)."""
        if format is None:
            return cls(layer.in_features, layer.out_features, weight=layer.weight, bias=layer.bias)
        return cls(layer.in_features, layer.out_features,
                   packed=quantize(layer.weight, format, tensor_cores, rows), bias=layer.bias)

    def packed(self):
        q, scales, q_mma, scales_mma = (getattr(self, name, None) for name in self._PACKED)
        return PackedWeight(q, scales, self.format, self.out_features, self.in_features, q_mma, scales_mma)

    def _apply(self, fn, recurse=True):
        # The packed values and scales are data in their format's own types: fn may move them, never cast them.
        kept = {name: t for name, t in self._buffers.items() if name in self._PACKED}
        super()._apply(fn, recurse)
        for name, t in kept.items():
            self._buffers[name] = t.to(self._buffers[name].device)
        return self

    def forward(self, x):
        return linear(x, self.weight if self.format is None else self.packed(), self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"weights={self.format or 'as given'}")


def patch(module, format=None, filter=None, tensor_cores=False, rows=True):
    """Swaps every nn.Linear inside `module` (recursively, in place) for a tilewise.Linear; returns `module`.

    format: None keeps the 16-bit weights (shared with the layer, not copied, so a later cast of the model casts them
    too: their dtype is checked when a layer runs, which takes bf16 or fp16); "q8_0", "int4-g32", "int4-g128" or "fp8"
    (or the command line's names: tilewise.quantize's) packs each layer's weight once, here; tensor_cores adds each
    one's tensor-core copy, with which more than 16 tokens (and fewer, where it measured faster) run the sm90 kernel;
    rows=False with it keeps that copy alone, which serves every token count (int4 at 1..8 tokens through a gemv that
    reads it where faster, the rest the sm90 kernel). rows=False without tensor_cores raises ValueError.
    filter(name, layer) -> bool leaves out the layers it returns False for.
    The output projection of an nn.MultiheadAttention is left as it is: attention reads its weight directly and never
    calls it as a module. Raises ValueError naming the first layer the format cannot take (K not a multiple of its
    group, a weight not finite: tilewise.quantize's errors), before any layer is swapped."""
    attention = {name for name, m in module.named_modules() if isinstance(m, torch.nn.MultiheadAttention)}
    targets = [(name, layer) for name, layer in module.named_modules()
               if isinstance(layer, torch.nn.Linear) and name.rpartition(".")[0] not in attention
               and (filter is None or filter(name, layer))]
    if isinstance(module, torch.nn.Linear) and targets and targets[0][0] == "":
        raise ValueError("patch swaps the nn.Linear layers inside a module; wrap a lone nn.Linear with "
                         "tilewise.Linear.from_linear instead")
    swapped = {}
    for name, layer in targets:
        try:
            swapped[name] = Linear.from_linear(layer, format, tensor_cores, rows)
        except ValueError as e:
            raise ValueError(f"layer {name} ({layer.out_features} x {layer.in_features}): {e}") from None
    for name, replacement in swapped.items():
        parent_name, _, child = name.rpartition(".")
        setattr(module.get_submodule(parent_name), child, replacement)
    return module
