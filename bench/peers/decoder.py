"""A Llama-style decoder-layer stack for the decode-step benchmark (decode_step.py), in plain torch: RMSNorm, fused
q/k/v projection, RoPE, attention through torch's SDPA over a KV cache, output projection, fused gate/up projection,
SiLU-gated MLP and down projection, each sublayer added to the residual stream. Every linear goes through a callable
`linear(layer, name, x)`, so each arm of the benchmark (torch, tilewise, quantized weights, no linears at all) runs the
same step, and the reference runs it in fp32 and fp64.

The tokens of one step (Batch): T decode tokens, one for each of T sequences with `context` tokens already cached
(serving's batched decode), or a prefill chunk of T tokens of one sequence after `context` cached tokens, causal
within the chunk. No embedding, final norm or LM head: the stack of layers alone.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right


@dataclass(frozen=True)
class Shape:
    name: str
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    mlp: int
    rope_theta: float = 500000.0
    eps: float = 1e-5

    def linears(self):
        """(name, out_features, in_features) of one layer's linears in the order the step runs them. q, k and v are
        one linear, as gate and up are: the fused layout serving engines load Llama checkpoints into."""
        q, kv = self.heads * self.head_dim, self.kv_heads * self.head_dim
        return [("qkv", q + 2 * kv, self.hidden), ("o", self.hidden, q), ("gate_up", 2 * self.mlp, self.hidden),
                ("down", self.hidden, self.mlp)]

    def layer_weights(self):
        """Linear weights of one layer (elements)."""
        return sum(f * k for _, f, k in self.linears())


SHAPES = {s.name: s for s in (
    Shape("llama3-8b", hidden=4096, heads=32, kv_heads=8, head_dim=128, mlp=14336),
    Shape("llama3-70b", hidden=8192, heads=64, kv_heads=8, head_dim=128, mlp=28672),
    Shape("tiny", hidden=256, heads=4, kv_heads=2, head_dim=64, mlp=512),  # the CPU dry run's
)}


class Weights:
    """Random weights of `layers` layers: every linear's [out, in] normal with std 1/sqrt(in) (the scale that keeps a
    unit-RMS input at unit RMS, as trained Llama layers roughly do), rounded to bf16; RMSNorm gains 1 + N(0, 0.1^2)."""

    def __init__(self, shape, layers, device, seed):
        self.shape, self.layers = shape, layers
        gen = torch.Generator(device=device).manual_seed(seed)

        def normal(*size, std=1.0, mean=0.0):
            return (torch.randn(*size, generator=gen, device=device) * std + mean).to(torch.bfloat16)
        self.linear = [{name: normal(f, k, std=1 / math.sqrt(k)) for name, f, k in shape.linears()}
                       for _ in range(layers)]
        self.norm = [{"attn": normal(shape.hidden, std=0.1, mean=1.0), "mlp": normal(shape.hidden, std=0.1, mean=1.0)}
                     for _ in range(layers)]


class Batch:
    """One step's tokens (bf16 hidden states, unit RMS), its KV cache (bf16, random for the cached positions), and
    RoPE's angles at the new tokens' positions."""

    def __init__(self, shape, layers, tokens, context, prefill, device, seed):
        self.shape, self.tokens, self.context, self.prefill = shape, tokens, context, prefill
        self.sequences, self.new = (1, tokens) if prefill else (tokens, 1)
        length = context + self.new
        gen = torch.Generator(device=device).manual_seed(seed)
        cache = (self.sequences, shape.kv_heads, length, shape.head_dim)
        self.k = [torch.randn(*cache, generator=gen, device=device).to(torch.bfloat16) for _ in range(layers)]
        self.v = [torch.randn(*cache, generator=gen, device=device).to(torch.bfloat16) for _ in range(layers)]
        self.x = torch.randn(tokens, shape.hidden, generator=gen, device=device).to(torch.bfloat16)
        self.mask, self.attention = None, "SDPA over the whole cache, no mask"
        if prefill:
            self.mask, self.attention = self.chunk_mask(length, device)
        half = shape.head_dim // 2
        inverse = shape.rope_theta ** (-torch.arange(0, half, device=device, dtype=torch.float64) / half)
        positions = (context + torch.arange(self.new, device=device, dtype=torch.float64)).repeat(self.sequences)
        angles = positions[:, None] * inverse[None, :]  # [tokens, head_dim / 2]
        self.angles, self.rotations = angles[:, None, :], {}  # broadcast over heads

    def chunk_mask(self, length, device):
        """A chunk sees the cache and itself causally: the causal mask aligned to the lower right, as torch's bias
        for it (flash or memory-efficient attention, nothing materialized) where this torch's SDPA takes it with
        GQA, else materialized. Returns the mask and what it is."""
        bias = causal_lower_right(self.new, length)
        probe = torch.zeros(1, self.shape.heads, self.new, self.shape.head_dim, dtype=torch.bfloat16, device=device)
        try:
            F.scaled_dot_product_attention(probe, self.k[0], self.v[0], attn_mask=bias, enable_gqa=True)
            return bias, "SDPA with torch's lower-right causal bias"
        except RuntimeError as e:
            mask = torch.ones(self.new, length, dtype=torch.bool, device=device).tril(self.context)
            return mask, f"SDPA with a materialized causal mask (the lower-right bias was refused: {e})"[:300]

    def rotation(self, dtype):
        """RoPE's (cos, sin) in `dtype`, made once: a step captured in a graph only reads them."""
        if dtype not in self.rotations:
            self.rotations[dtype] = (self.angles.cos().to(dtype), self.angles.sin().to(dtype))
        return self.rotations[dtype]


def rope(x, cos, sin):
    """Rotary embedding, rotate-half form: x [tokens, heads, head_dim]."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def attend(batch, layer, q, k, v):
    """Writes the new tokens' k and v into the layer's cache and attends over it. In bf16 the cache itself is written
    (as a serving step does; every step writes the same positions before reading them); in another dtype, a converted
    copy, so a reference run leaves the cache as the arms see it."""
    s, n, c, shape = batch.sequences, batch.new, batch.context, batch.shape
    kc, vc = batch.k[layer], batch.v[layer]
    if kc.dtype != q.dtype:
        kc, vc = kc.to(q.dtype), vc.to(q.dtype)
    kc[:, :, c:c + n] = k.view(s, n, shape.kv_heads, shape.head_dim).transpose(1, 2)
    vc[:, :, c:c + n] = v.view(s, n, shape.kv_heads, shape.head_dim).transpose(1, 2)
    out = F.scaled_dot_product_attention(q.view(s, n, shape.heads, shape.head_dim).transpose(1, 2), kc, vc,
                                         attn_mask=batch.mask, enable_gqa=True)
    return out.transpose(1, 2).reshape(batch.tokens, shape.heads * shape.head_dim)


def step(batch, weights, linear, dtype=torch.bfloat16, inputs=None):
    """The stack on batch.x in `dtype`: the hidden state after each layer. `linear(layer, name, x)` returns
    x W^T for the layer's linear `name` (Shape.linears) in x's dtype. With `inputs` (teacher forcing), layer l runs
    on inputs[l] rather than on the previous layer's output here: [batch.x] + another run's outputs but its last
    judges each layer alone against that run."""
    shape = batch.shape
    cos, sin = batch.rotation(dtype)
    q_size, kv_size = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    x, out = batch.x.to(dtype), []
    for layer in range(weights.layers):
        if inputs is not None:
            x = inputs[layer].to(dtype)
        norm = weights.norm[layer]
        h = F.rms_norm(x, (shape.hidden,), norm["attn"].to(dtype), shape.eps)
        q, k, v = linear(layer, "qkv", h).split([q_size, kv_size, kv_size], dim=-1)
        q = rope(q.reshape(-1, shape.heads, shape.head_dim), cos, sin)
        k = rope(k.reshape(-1, shape.kv_heads, shape.head_dim), cos, sin)
        x = x + linear(layer, "o", attend(batch, layer, q, k, v))
        h = F.rms_norm(x, (shape.hidden,), norm["mlp"].to(dtype), shape.eps)
        gate, up = linear(layer, "gate_up", h).chunk(2, dim=-1)
        x = x + linear(layer, "down", F.silu(gate) * up)
        out.append(x)
    return out


def relative_error(got, want):
    """||got - want|| / ||want|| in fp64; None where `got` is not finite."""
    if not torch.isfinite(got).all():
        return None
    want = want.double()
    return ((got.double() - want).norm() / want.norm()).item()
