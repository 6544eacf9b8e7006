"""tilewise's torch ops on a GPU (skipped without one): against F.linear (16-bit, fp8) and against the dequantized
weights (packed, and their tensor-core copy alone) at T = 1..16 and beyond, with bias, under CUDA-graph capture,
torch.compile, on two streams at once, and opcheck on real tensors."""
import unittest

import torch
import torch.nn.functional as F

import tilewise

HAS_GPU = torch.cuda.is_available()
BOUND = {torch.bfloat16: 1e-2, torch.float16: 2e-3}  # ||y - ref|| / ||ref||: the output's own rounding, and a margin


def relative_error(y, ref):
    return float((y.float() - ref.float()).norm() / ref.float().norm())


@unittest.skipUnless(HAS_GPU, "needs a CUDA GPU")
class Gpu(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.dev = torch.device("cuda")

    def weights(self, F_, K, dtype):
        return (torch.randn(F_, K, device=self.dev) / K ** 0.5).to(dtype)

    def test_16_bit_against_f_linear(self):
        for dtype in (torch.bfloat16, torch.float16):
            w = self.weights(2048, 4096, dtype)
            bias = torch.randn(2048, device=self.dev, dtype=dtype)
            for tokens in list(range(1, 17)) + [17, 64, 333]:
                for b in (None, bias):
                    with self.subTest(dtype=dtype, tokens=tokens, bias=b is not None):
                        x = torch.randn(tokens, 4096, device=self.dev, dtype=dtype)
                        ref = F.linear(x.float(), w.float(), None if b is None else b.float())
                        y = tilewise.linear(x, w, b)
                        self.assertEqual((y.shape, y.dtype), (ref.shape, dtype))
                        self.assertLess(relative_error(y, ref), BOUND[dtype], tilewise.last_choice())

    def test_an_eager_call_and_the_op_give_the_same_bits(self):
        w = self.weights(1024, 2048, torch.bfloat16)
        pw = tilewise.quantize(w, "int4-g32")
        for tokens in (1, 8, 64):
            x = torch.randn(tokens, 2048, device=self.dev, dtype=torch.bfloat16)
            with self.subTest(tokens=tokens):
                self.assertTrue(torch.equal(tilewise.linear(x, w), torch.ops.tilewise.linear(x, w, None)))
                self.assertTrue(torch.equal(tilewise.linear(x, pw),
                                            torch.ops.tilewise.linear_packed(x, pw.q, pw.scales, 3, None)))
        short = torch.randn(2, 1024, device=self.dev, dtype=torch.bfloat16)  # K = 1024 against weights of 2048
        for call in (lambda: tilewise.linear(short, pw),
                     lambda: torch.ops.tilewise.linear_packed(short, pw.q, pw.scales, 3, None)):
            with self.assertRaisesRegex(ValueError, "does not fit packed int4-g32"):
                call()

    def test_from_8_tokens_q8_0_runs_its_copy_on_an_h200(self):
        # The crossover (src/select/packed_crossover.cpp): Q8_0 with its copy runs the sm90 kernel from 8 tokens on
        # the GPU it was measured on, the gemv below 8 and everywhere without the copy.
        w = self.weights(1024, 2048, torch.bfloat16)
        with_copy = tilewise.quantize(w, "q8_0", tensor_cores=True)
        without = tilewise.quantize(w, "q8_0")
        ref_w = tilewise.dequantize(without).to(self.dev)
        h200 = torch.cuda.get_device_name() == "NVIDIA H200"
        for tokens, pw, family in ((7, with_copy, "gemv"), (8, with_copy, "sm90" if h200 else "gemv"),
                                   (8, without, "gemv")):
            with self.subTest(tokens=tokens, copy=pw.q_mma is not None):
                x = torch.randn(tokens, 2048, device=self.dev, dtype=torch.bfloat16)
                y = tilewise.linear(x, pw)
                self.assertTrue(tilewise.last_choice().startswith(f"{family} on packed"), tilewise.last_choice())
                self.assertLess(relative_error(y, F.linear(x.float(), ref_w)), BOUND[torch.bfloat16])

    def test_past_16_tokens_the_tensor_core_copy_serves(self):
        for dtype in (torch.bfloat16, torch.float16):
            for fmt in ("int4-g128", "int4-g32", "q8_0", "fp8"):
                w = self.weights(1024, 2048, dtype)
                pw = tilewise.quantize(w, fmt, tensor_cores=True)
                ref_w = tilewise.dequantize(pw).to(self.dev)
                for tokens in (17, 64, 333):
                    with self.subTest(dtype=dtype, format=fmt, tokens=tokens):
                        x = torch.randn(tokens, 2048, device=self.dev, dtype=dtype)
                        y = tilewise.linear(x, pw)
                        self.assertIn("sm90 on packed", tilewise.last_choice())
                        self.assertLess(relative_error(y, F.linear(x.float(), ref_w)), BOUND[dtype])
                        self.assertTrue(torch.equal(y, torch.ops.tilewise.linear_packed(
                            x, pw.q, pw.scales, tilewise._capi.FORMATS[fmt], None, pw.q_mma, pw.scales_mma)))

    def test_the_tensor_core_copy_is_undone_exactly(self):
        # tilewise.dequantize and the backward of a copy alone put it back in rows of K with torch ops: the library's
        # own tensor-core order (tw_pack_for_tensor_cores), undone, is the rows bit for bit.
        from tilewise.packed import _from_tensor_core_order
        for fmt in tilewise.FORMATS:
            for F_, K in ((64, 128), (192, 384), (1024, 2048)):
                with self.subTest(fmt, F=F_, K=K):
                    pw = tilewise.quantize(self.weights(F_, K, torch.bfloat16), fmt, tensor_cores=True)
                    self.assertFalse(torch.equal(pw.q_mma, pw.q))
                    q, scales = _from_tensor_core_order(pw.q_mma, pw.scales_mma, fmt, F_, K)
                    self.assertTrue(torch.equal(q, pw.q))
                    self.assertTrue(torch.equal(scales, pw.scales))  # finite and not 0: equal values, equal bits

    def test_the_tensor_core_copy_alone_serves_every_token_count(self):
        bias = {dtype: torch.randn(1024, device=self.dev, dtype=dtype) for dtype in (torch.bfloat16, torch.float16)}
        for dtype in (torch.bfloat16, torch.float16):
            for fmt in ("int4-g128", "int4-g32", "q8_0", "fp8"):
                w = self.weights(1024, 2048, dtype)
                both = tilewise.quantize(w, fmt, tensor_cores=True)
                alone = tilewise.quantize(w, fmt, tensor_cores=True, rows=False)
                self.assertIsNone(alone.q)
                self.assertTrue(torch.equal(alone.q_mma, both.q_mma))
                self.assertTrue(torch.equal(alone.scales_mma, both.scales_mma))
                ref_w = tilewise.dequantize(both)  # the rows' weights
                self.assertTrue(torch.equal(tilewise.dequantize(alone), ref_w))
                self.assertTrue(torch.equal(tilewise.dequantize(alone, dtype), tilewise.dequantize(both, dtype)))
                code = tilewise._capi.FORMATS[fmt]
                for tokens in (1, 3, 8, 9, 16, 17, 64):
                    for b in (None, bias[dtype]):
                        with self.subTest(dtype=dtype, format=fmt, tokens=tokens, bias=b is not None):
                            x = torch.randn(tokens, 2048, device=self.dev, dtype=dtype)
                            y = tilewise.linear(x, alone, b)
                            family = "gemv mma-order" if fmt.startswith("int4") and tokens <= 16 else "sm90"
                            self.assertTrue(tilewise.last_choice().startswith(f"{family} on packed "
                                                                              f"{fmt.replace('-', '')} weights"),
                                            tilewise.last_choice())
                            ref = F.linear(x.float(), ref_w, None if b is None else b.float())
                            self.assertLess(relative_error(y, ref), BOUND[dtype], tilewise.last_choice())
                            self.assertTrue(torch.equal(y, torch.ops.tilewise.linear_packed(
                                x, None, None, code, b, alone.q_mma, alone.scales_mma)))

    def test_a_model_patched_with_the_copy_alone(self):
        model = torch.nn.Sequential(torch.nn.Linear(2048, 1024), torch.nn.SiLU(), torch.nn.Linear(1024, 2048))
        model = model.to(self.dev, torch.bfloat16)
        with torch.no_grad():
            tilewise.patch(model, "int4-g128", tensor_cores=True, rows=False)
        self.assertEqual(set(model.state_dict()), {f"{i}.{name}" for i in (0, 2)
                                                   for name in ("q_mma", "scales_mma", "bias")})
        weights = [tilewise.dequantize(model[i].packed()) for i in (0, 2)]
        for tokens in (4, 64):
            x = torch.randn(tokens, 2048, device=self.dev, dtype=torch.bfloat16)
            h = F.silu(F.linear(x.float(), weights[0], model[0].bias.float()))
            ref = F.linear(h, weights[1], model[2].bias.float())
            with torch.no_grad():
                y = model(x)
            self.assertLess(relative_error(y, ref), 2 * BOUND[torch.bfloat16], f"T={tokens}")

    def test_the_gradient_through_a_copy_alone_is_the_rows(self):
        # Backward multiplies by the dequantized weights: those of the copy alone, put back in rows of K, are the
        # rows' own, so the gradients are the same bits.
        for fmt in tilewise.FORMATS:
            with self.subTest(fmt):
                w = self.weights(512, 1024, torch.bfloat16)
                both = tilewise.quantize(w, fmt, tensor_cores=True)
                alone = tilewise.PackedWeight(None, None, fmt, 512, 1024, both.q_mma, both.scales_mma)
                x0 = torch.randn(5, 1024, device=self.dev, dtype=torch.bfloat16)
                g = torch.randn(5, 512, device=self.dev, dtype=torch.bfloat16)
                grads = []
                for pw in (both, alone):
                    x = x0.clone().requires_grad_()
                    bias = torch.zeros(512, device=self.dev, dtype=torch.bfloat16, requires_grad=True)
                    tilewise.linear(x, pw, bias).backward(g)
                    grads.append((x.grad, bias.grad))
                self.assertTrue(torch.equal(grads[0][0], grads[1][0]))
                self.assertTrue(torch.equal(grads[0][1], grads[1][1]))
                ref = g.float() @ tilewise.dequantize(both)
                self.assertLess(relative_error(grads[1][0], ref), BOUND[torch.bfloat16])

    def test_leading_dimensions_and_an_offset_slice(self):
        w = self.weights(1024, 2048, torch.bfloat16)
        x = torch.randn(2, 3, 2048, device=self.dev, dtype=torch.bfloat16)
        self.assertLess(relative_error(tilewise.linear(x, w), F.linear(x.float(), w.float())), BOUND[torch.bfloat16])
        flat = torch.randn(2048 * 5 + 1, device=self.dev, dtype=torch.bfloat16)
        odd = flat[1:].view(5, 2048)  # 2 bytes past an aligned start: copied to alignment first
        self.assertLess(relative_error(tilewise.linear(odd, w), F.linear(odd.float(), w.float())), BOUND[torch.bfloat16])

    def test_fp8_with_scales(self):
        w = self.weights(1024, 4096, torch.float32)
        sx, sw = torch.tensor(0.05, device=self.dev), torch.tensor(0.002, device=self.dev)
        w8 = (w / sw).to(torch.float8_e4m3fn)
        bias = torch.randn(1024, device=self.dev, dtype=torch.bfloat16)
        for tokens in (1, 16, 128):
            x8 = (torch.randn(tokens, 4096, device=self.dev) / sx).clamp(-448, 448).to(torch.float8_e4m3fn)
            ref = F.linear(x8.float() * sx, w8.float() * sw) + bias.float()
            y = tilewise.linear(x8, w8, bias, x_scale=sx, w_scale=sw)
            self.assertEqual(y.dtype, torch.bfloat16)
            self.assertLess(relative_error(y, ref), BOUND[torch.bfloat16], f"T={tokens}")

    def test_packed_against_the_dequantized_weights(self):
        for fmt in tilewise.FORMATS:
            for dtype in (torch.bfloat16, torch.float16):
                w = self.weights(1536, 4096, dtype)
                pw = tilewise.quantize(w, fmt)
                self.assertTrue(torch.equal(tilewise.dequantize(pw).cpu(), tilewise.dequantize_reference(pw)))
                seen = tilewise.dequantize(pw)
                # The library's 16-bit dequantizer (the scratch of the path past 16 tokens): the same values rounded.
                self.assertTrue(torch.equal(tilewise.dequantize(pw, dtype), seen.to(dtype)))
                bias = torch.randn(1536, device=self.dev, dtype=dtype)
                for tokens in list(range(1, 17)) + [17, 40, 256]:
                    with self.subTest(fmt=fmt, dtype=dtype, tokens=tokens):
                        x = torch.randn(tokens, 4096, device=self.dev, dtype=dtype)
                        y = tilewise.linear(x, pw, bias)
                        if tokens > tilewise.MAX_PACKED_TOKENS:  # the 16-bit path on weights rounded to x's dtype
                            ref = F.linear(x.float(), seen.to(dtype).float(), bias.float())
                        else:
                            ref = F.linear(x.float(), seen, bias.float())
                        self.assertLess(relative_error(y, ref), BOUND[dtype], tilewise.last_choice())
                        if tokens <= tilewise.MAX_PACKED_TOKENS:
                            self.assertIn(f"packed {fmt.replace('-', '')}", tilewise.last_choice())

    def test_cuda_graph_capture_after_a_first_call(self):
        w = self.weights(4096, 4096, torch.bfloat16)
        pw = tilewise.quantize(w, "int4-g128")
        x = torch.randn(4, 4096, device=self.dev, dtype=torch.bfloat16)
        tilewise.linear(x, w), tilewise.linear(x, pw)  # the first calls build the kernels
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # on a stream of its own, in global capture mode
            y16 = tilewise.linear(x, w)
            y4 = tilewise.linear(x, pw)
        for _ in range(3):
            x.copy_(torch.randn_like(x))
            graph.replay()
            torch.cuda.synchronize()
            self.assertLess(relative_error(y16, F.linear(x.float(), w.float())), BOUND[torch.bfloat16])
            self.assertLess(relative_error(y4, F.linear(x.float(), tilewise.dequantize(pw))), BOUND[torch.bfloat16])

    def test_cuda_graph_capture_of_the_tensor_core_path(self):
        # The sm90 kernel is kept per stream: a first call on another stream builds it (stream-K scratch included)
        # inside the capture, which the library does in relaxed capture mode.
        w = self.weights(4096, 4096, torch.bfloat16)
        pw = tilewise.quantize(w, "int4-g128", tensor_cores=True)
        ref_w = tilewise.dequantize(pw)
        xs = [torch.randn(tokens, 4096, device=self.dev, dtype=torch.bfloat16) for tokens in (17, 64, 333)]
        for x in xs:
            tilewise.linear(x, pw)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            ys = [tilewise.linear(x, pw) for x in xs]
        for _ in range(2):
            for x in xs:
                x.copy_(torch.randn_like(x))
            graph.replay()
            torch.cuda.synchronize()
            for x, y in zip(xs, ys):
                self.assertLess(relative_error(y, F.linear(x.float(), ref_w)), BOUND[torch.bfloat16])

    def test_torch_compile_runs_the_ops(self):
        model = torch.nn.Sequential(torch.nn.Linear(2048, 4096), torch.nn.SiLU(), torch.nn.Linear(4096, 2048))
        model = model.to(self.dev, torch.bfloat16)
        x = torch.randn(8, 2048, device=self.dev, dtype=torch.bfloat16)
        with torch.no_grad():
            ref = model.float()(x.float())
            model = tilewise.patch(model.to(torch.bfloat16))
            y = torch.compile(model, fullgraph=True)(x)
        self.assertLess(relative_error(y, ref), 2 * BOUND[torch.bfloat16])

    def test_two_streams_at_once(self):
        # Shapes whose plans keep state between launches on some families (stream-K, cuBLASLt's split-K workspace).
        w = self.weights(1024, 8192, torch.bfloat16)
        pw = tilewise.quantize(w, "q8_0")
        xs = [torch.randn(t, 8192, device=self.dev, dtype=torch.bfloat16) for t in (512, 300)]
        refs = [F.linear(x.float(), w.float()) for x in xs]
        streams = [torch.cuda.Stream(), torch.cuda.Stream()]
        outs = [[], []]
        torch.cuda.synchronize()
        for _ in range(32):
            for i, s in enumerate(streams):
                with torch.cuda.stream(s):
                    outs[i].append(tilewise.linear(xs[i], w))
                    outs[i].append(tilewise.linear(xs[i][:8], pw))
        torch.cuda.synchronize()
        for i in range(2):
            deq = F.linear(xs[i][:8].float(), tilewise.dequantize(pw))
            for y16, y8 in zip(outs[i][0::2], outs[i][1::2]):
                self.assertLess(relative_error(y16, refs[i]), BOUND[torch.bfloat16])
                self.assertLess(relative_error(y8, deq), BOUND[torch.bfloat16])

    def test_opcheck_on_the_gpu(self):
        from torch.library import opcheck
        x = torch.randn(5, 1024, device=self.dev, dtype=torch.bfloat16, requires_grad=True)
        w = self.weights(512, 1024, torch.bfloat16).requires_grad_()
        opcheck(torch.ops.tilewise.linear.default, (x, w, None))
        pw = tilewise.quantize(w.detach(), "int4-g32", tensor_cores=True)
        opcheck(torch.ops.tilewise.linear_packed.default, (x, pw.q, pw.scales, 3, None))
        opcheck(torch.ops.tilewise.linear_packed.default, (x, None, None, 3, None, pw.q_mma, pw.scales_mma))

    def test_the_librarys_errors_reach_python(self):
        x8 = torch.zeros(4, 40, device=self.dev, dtype=torch.float8_e4m3fn)  # K = 40: not a multiple of 16
        w8 = torch.zeros(64, 40, device=self.dev, dtype=torch.float8_e4m3fn)
        one = torch.ones((), device=self.dev)
        with self.assertRaisesRegex(tilewise.Error, "16"):
            tilewise.linear(x8, w8, x_scale=one, w_scale=one)
        with self.assertRaisesRegex(ValueError, "bias must be a CUDA tensor"):
            tilewise.linear(torch.zeros(1, 64, device=self.dev, dtype=torch.bfloat16),
                            torch.zeros(8, 64, device=self.dev, dtype=torch.bfloat16),
                            torch.zeros(8, dtype=torch.bfloat16))
        # The C ABI names which size is not positive (it said "linear: N = 0", the problem's name for the tokens).
        lib, ctx = tilewise._capi.lib(), tilewise._capi.context(self.dev.index or 0)
        with self.assertRaisesRegex(tilewise.Error, "linear: tokens 0, out_features 8 and in_features 64 must each be"):
            tilewise._capi.check(lib.tw_linear(ctx, tilewise._capi.BF16, 0, 8, 64, None, None, None, None))


if __name__ == "__main__":
    unittest.main()
