"""The linears of each decode-step arm: how the arm holds a layer's weight, x W^T with it, the weights it actually
computes with (the arm's own reference) and the bytes one step streams. Each arm names its weight format, whose
rounding error sets its bounds against the bf16 weights (receipt.step_bounds).

Arms: torch-bf16 (F.linear), tilewise-bf16 (tilewise.linear), tilewise-<format> (tilewise.quantize's packed weights:
q8_0, int4-g128, int4-g32, fp8; "-tc" with their tensor-core copy too, "-tc-only" with that copy alone), torch's own weight-only kernels as peers (torch-int8: torch._weight_int8pack_mm on
int8 weights with a bf16 scale per output channel; torch-int4-g128: torch._weight_int4pack_mm on int4 weights,
asymmetric, a bf16 scale and zero per 128 weights along K, the layout torch._convert_weight_to_int4pack packs), and
no-linears (every linear's output a zero tensor of its shape, no work: the step's time outside its linears).
"""
import torch
import torch.nn.functional as F


def tilewise_module():
    """The tilewise package, imported on first use (the CPU dry run runs without it)."""
    import tilewise
    return tilewise


class Arm:
    """An arm's linears. prepare(w) -> what the arm keeps for one bf16 weight [out, in]; apply(x, kept) -> x W^T in
    x's dtype; seen(kept) -> the weights it computes with, fp32 [out, in]; nbytes(kept) -> the bytes it streams."""
    name, family, weight_format, text = "", "", "bf16", ""

    def prepare(self, w):
        return w

    def seen(self, kept):
        return kept.float()

    def nbytes(self, kept):
        return kept.numel() * kept.element_size()


class TorchBf16(Arm):
    name, family, text = "torch-bf16", "torch", "F.linear(x, w) (torch's cuBLAS route)"

    def apply(self, x, w):
        return F.linear(x, w)


class TilewiseBf16(Arm):
    name, family, text = "tilewise-bf16", "tilewise", "tilewise.linear(x, w)"

    def __init__(self):
        self.tilewise = tilewise_module()

    def apply(self, x, w):
        return self.tilewise.linear(x, w)


class TilewisePacked(Arm):
    family = "tilewise"

    def __init__(self, weight_format, tensor_cores=False, rows=True):
        self.tilewise = tilewise_module()
        self.weight_format, self.tensor_cores, self.rows = weight_format, tensor_cores, rows
        self.name = "tilewise-" + weight_format + ("-tc" if tensor_cores else "") + ("" if rows else "-only")
        self.text = (f"tilewise.linear(x, tilewise.quantize(w, '{weight_format}'"
                     f"{', tensor_cores=True' if tensor_cores else ''}{'' if rows else ', rows=False'}))")

    def prepare(self, w):
        return self.tilewise.quantize(w, self.weight_format, tensor_cores=self.tensor_cores, rows=self.rows)

    def apply(self, x, packed):
        return self.tilewise.linear(x, packed)

    def seen(self, packed):
        return self.tilewise.dequantize(packed, torch.float32)

    def nbytes(self, packed):  # what the step keeps: rows of K, the tensor-core copy, or both
        kept = (packed.q, packed.scales, packed.q_mma, packed.scales_mma)
        return sum(t.numel() * t.element_size() for t in kept if t is not None)


class TorchInt8(Arm):
    """Symmetric int8 per output channel: s = amax / 127 in bf16, q = round(w / s)."""
    name, family, weight_format = "torch-int8", "torch", "int8-channel"
    text = "torch._weight_int8pack_mm(x, q int8 [out, in], s bf16 [out])"

    def prepare(self, w):
        s = (w.float().abs().amax(dim=1) / 127).clamp_min(1e-12).to(torch.bfloat16)
        q = torch.round(w.float() / s.float()[:, None]).clamp(-128, 127).to(torch.int8)
        return q, s

    def apply(self, x, kept):
        return torch._weight_int8pack_mm(x, *kept)

    def seen(self, kept):
        q, s = kept
        return q.float() * s.float()[:, None]

    def nbytes(self, kept):
        return sum(t.numel() * t.element_size() for t in kept)


class TorchInt4(Arm):
    """torch's int4 weight-only format: per 128 weights along K, s = (max - min) / 15 and zero = min + 8 s, both
    bf16, q = round((w - min) / s) in 0..15; the kernel computes with (q - 8) s + zero. On the GPU packed by
    torch._convert_weight_to_int4pack for torch._weight_int4pack_mm; on the CPU (dry run) by its _for_cpu twins."""
    name, family, weight_format = "torch-int4-g128", "torch", "int4-g128-asym"
    text = "torch._weight_int4pack_mm(x, torch._convert_weight_to_int4pack(q, 8), 128, scales_and_zeros)"
    group, inner_k_tiles = 128, 8

    def prepare(self, w):
        out_features, in_features = w.shape
        groups = w.float().view(out_features, in_features // self.group, self.group)
        low, high = groups.amin(dim=2), groups.amax(dim=2)
        s = ((high - low).clamp_min(1e-6) / 15).to(torch.bfloat16)
        zero = (low + 8 * s.float()).to(torch.bfloat16)
        base = zero.float() - 8 * s.float()  # what q = 0 stands for, from the stored scale and zero
        q = torch.round((groups - base[..., None]) / s.float()[..., None]).clamp(0, 15).to(torch.int32)
        q = q.view(out_features, in_features)
        if w.is_cuda:
            packed = torch._convert_weight_to_int4pack((q[:, ::2] << 4 | q[:, 1::2]).to(torch.uint8),
                                                       self.inner_k_tiles)
        else:
            packed = torch._convert_weight_to_int4pack_for_cpu(q, self.inner_k_tiles)
        scales_and_zeros = torch.stack((s, zero), dim=2).transpose(0, 1).contiguous()  # [in / 128, out, 2]
        return packed, scales_and_zeros, q.to(torch.uint8)

    def apply(self, x, kept):
        packed, scales_and_zeros, _ = kept
        mm = torch._weight_int4pack_mm if x.is_cuda else torch._weight_int4pack_mm_for_cpu
        return mm(x, packed, self.group, scales_and_zeros)

    def seen(self, kept):
        _, scales_and_zeros, q = kept
        s, zero = (scales_and_zeros[..., i].transpose(0, 1).float().repeat_interleave(self.group, dim=1)
                   for i in (0, 1))
        return (q.float() - 8) * s + zero

    def nbytes(self, kept):
        packed, scales_and_zeros, _ = kept  # the unpacked copy of q is the reference's, never streamed
        return sum(t.numel() * t.element_size() for t in (packed, scales_and_zeros))


class NoLinears(Arm):
    """Every linear's output a zero tensor of its shape, made once per shape before capture: the step with no
    linear work, whose time is the rest of the step's."""
    name, family, text = "no-linears", "none", "every linear's output a preallocated zero tensor of its shape"

    def __init__(self):
        self.zeros = {}

    def prepare(self, w):
        return w.shape, w.device

    def apply(self, x, kept):
        key = (x.shape[0], kept[0][0], x.dtype, x.device)
        if key not in self.zeros:
            self.zeros[key] = torch.zeros(x.shape[0], kept[0][0], dtype=x.dtype, device=x.device)
        return self.zeros[key]

    def seen(self, kept):
        return torch.zeros(kept[0], dtype=torch.float32, device=kept[1])

    def nbytes(self, kept):
        return 0


TILEWISE_FORMATS = ("q8_0", "int4-g128", "int4-g32", "fp8")
# "-tc": the weights with their tensor-core copy (past 16 tokens the sm90 kernel instead of dequantizing); "-tc-only":
# that copy alone (one packed copy for every token count).
ARMS = ["torch-bf16", "tilewise-bf16"] + [f"tilewise-{f}" for f in TILEWISE_FORMATS] + \
    [f"tilewise-{f}-tc" for f in TILEWISE_FORMATS] + [f"tilewise-{f}-tc-only" for f in TILEWISE_FORMATS] + \
    ["torch-int8", "torch-int4-g128", "no-linears"]
# int4 in one group size by default; g32 and the tensor-core copies on request
DEFAULT_ARMS = [a for a in ARMS if a != "tilewise-int4-g32" and not a.endswith(("-tc", "-tc-only"))]


def make(name):
    """The arm called `name` (ARMS); a tilewise arm raises ImportError where the package is not installed."""
    simple = {"torch-bf16": TorchBf16, "tilewise-bf16": TilewiseBf16, "torch-int8": TorchInt8,
              "torch-int4-g128": TorchInt4, "no-linears": NoLinears}
    if name in simple:
        return simple[name]()
    if name.startswith("tilewise-") and name[len("tilewise-"):] in TILEWISE_FORMATS:
        return TilewisePacked(name[len("tilewise-"):])
    if name.startswith("tilewise-") and name.endswith("-tc") and name[len("tilewise-"):-3] in TILEWISE_FORMATS:
        return TilewisePacked(name[len("tilewise-"):-3], tensor_cores=True)
    if name.startswith("tilewise-") and name.endswith("-tc-only") and name[len("tilewise-"):-8] in TILEWISE_FORMATS:
        return TilewisePacked(name[len("tilewise-"):-8], tensor_cores=True, rows=False)
    raise ValueError(f"unknown arm '{name}' (known: {', '.join(ARMS)})")
