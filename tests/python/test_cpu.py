"""What the Python package does without a GPU: the ops' registration, their fake (meta) implementations under
torch.library.opcheck, torch.export and torch.compile, patch(), quantize and dequantize against the library's CPU
reference, and the errors for bad input. Run: python -m unittest discover -s tests/python (or pytest tests/python)."""
import os
import pathlib
import re
import subprocess
import tempfile
import unittest
import warnings

import torch

import tilewise

META = "meta"


def meta(*shape, dtype=torch.bfloat16, requires_grad=False):
    return torch.empty(*shape, dtype=dtype, device=META, requires_grad=requires_grad)


class Registration(unittest.TestCase):
    def test_the_ops_are_in_the_tilewise_namespace_with_their_schemas(self):
        self.assertEqual(str(torch.ops.tilewise.linear.default._schema),
                         "tilewise::linear(Tensor x, Tensor w, Tensor? bias) -> Tensor")
        self.assertEqual(str(torch.ops.tilewise.linear_fp8.default._schema),
                         "tilewise::linear_fp8(Tensor x, Tensor w, Tensor x_scale, Tensor w_scale, Tensor? bias) "
                         "-> Tensor")
        self.assertEqual(str(torch.ops.tilewise.linear_packed.default._schema),
                         "tilewise::linear_packed(Tensor x, Tensor? q, Tensor? scales, SymInt format, Tensor? bias, "
                         "Tensor? q_mma=None, Tensor? scales_mma=None) -> Tensor")


class Fake(unittest.TestCase):
    def test_shapes_and_dtypes(self):
        for lead in [(1,), (7,), (2, 5), (3, 1, 4)]:
            for dtype in (torch.bfloat16, torch.float16):
                y = tilewise.linear(meta(*lead, 256, dtype=dtype), meta(64, 256, dtype=dtype))
                self.assertEqual((tuple(y.shape), y.dtype, y.device.type), (lead + (64,), dtype, META))
        y = tilewise.linear(meta(3, 256, dtype=torch.float8_e4m3fn), meta(64, 256, dtype=torch.float8_e4m3fn),
                            x_scale=torch.ones((), device=META), w_scale=torch.ones((), device=META))
        self.assertEqual((tuple(y.shape), y.dtype), ((3, 64), torch.bfloat16))
        pw = tilewise.quantize(torch.randn(64, 256, dtype=torch.bfloat16), "int4-g128").to(META)
        y = tilewise.linear(meta(2, 9, 256, dtype=torch.float16), pw, meta(64, dtype=torch.float16))
        self.assertEqual((tuple(y.shape), y.dtype), ((2, 9, 64), torch.float16))

    def test_opcheck(self):
        from torch.library import opcheck
        b = meta(64, requires_grad=True)
        for args in [(meta(5, 256), meta(64, 256), None),
                     (meta(2, 5, 256, requires_grad=True), meta(64, 256, requires_grad=True), b)]:
            opcheck(torch.ops.tilewise.linear.default, args)
        one = torch.ones((), device=META)
        opcheck(torch.ops.tilewise.linear_fp8.default,
                (meta(7, 256, dtype=torch.float8_e4m3fn), meta(64, 256, dtype=torch.float8_e4m3fn), one, one, None))
        for fmt in tilewise.FORMATS:
            pw = tilewise.quantize(torch.randn(64, 256, dtype=torch.bfloat16), fmt).to(META)
            code = {"q8_0": 2, "int4-g32": 3, "int4-g128": 4, "fp8": 5}[fmt]
            opcheck(torch.ops.tilewise.linear_packed.default, (meta(3, 256, requires_grad=True), pw.q, pw.scales,
                                                               code, meta(64)))

    def test_export_and_compile_trace_a_patched_model_into_tilewise_ops(self):
        model = torch.nn.Sequential(torch.nn.Linear(256, 128, dtype=torch.bfloat16), torch.nn.GELU(),
                                    torch.nn.Linear(128, 64, bias=False, dtype=torch.bfloat16))
        tilewise.patch(model)
        model = model.to(META)
        x = meta(4, 256)
        ops = [n.target for n in torch.export.export(model, (x,)).graph.nodes if n.op == "call_function"]
        self.assertEqual(ops.count(torch.ops.tilewise.linear.default), 2, ops)
        compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
        self.assertEqual(tuple(compiled(x).shape), (4, 64))


class Direct(unittest.TestCase):
    def test_only_plain_eager_cuda_calls_skip_the_dispatcher(self):
        from tilewise.ops import _direct
        self.assertFalse(_direct(meta(4, 256), meta(64, 256), None))  # the fake implementation answers
        self.assertFalse(_direct(torch.zeros(4, 256), torch.zeros(64, 256), None))  # the op's check names the device
        if torch.cuda.is_available():
            x, w = torch.zeros(4, 256, device="cuda"), torch.zeros(64, 256, device="cuda")
            self.assertTrue(_direct(x, w, None))
            self.assertFalse(_direct(x, w.requires_grad_(), None))  # autograd records through the op
            with torch.no_grad():
                self.assertTrue(_direct(x, w, None))


class Patch(unittest.TestCase):
    def model(self):
        torch.manual_seed(0)
        inner = torch.nn.Sequential(torch.nn.Linear(256, 128), torch.nn.ReLU())
        return torch.nn.ModuleDict({"up": torch.nn.Linear(128, 256), "block": inner,
                                    "head": torch.nn.Linear(256, 32, bias=False)}).to(torch.bfloat16)

    def test_16_bit_weights_are_shared_not_copied(self):
        m = self.model()
        up, head = m["up"].weight, m["head"].weight
        self.assertIs(tilewise.patch(m), m)
        self.assertIsInstance(m["up"], tilewise.Linear)
        self.assertIsInstance(m["block"][0], tilewise.Linear)
        self.assertIsInstance(m["block"][1], torch.nn.ReLU)
        self.assertIs(m["up"].weight, up)
        self.assertIs(m["head"].weight, head)
        self.assertIsNone(m["head"].bias)
        self.assertEqual({n for n, _ in m.named_parameters()},
                         {"up.weight", "up.bias", "block.0.weight", "block.0.bias", "head.weight"})

    def test_a_format_packs_each_weight_once_as_quantize_does(self):
        m = self.model()
        head = m["head"].weight.detach().clone()
        tilewise.patch(m, format="int4-g32", filter=lambda name, layer: name != "up")
        self.assertIsInstance(m["up"], torch.nn.Linear)  # left out by the filter
        self.assertEqual(m["head"].format, "int4-g32")
        want = tilewise.quantize(head, "int4-g32")
        self.assertTrue(torch.equal(m["head"].q, want.q))
        self.assertTrue(torch.equal(m["head"].scales, want.scales))
        self.assertIn("head.q", m.state_dict())
        self.assertIn("weights=int4-g32", repr(m["head"]))

    def test_a_dtype_cast_of_the_model_leaves_packed_weights_as_they_are(self):
        m = self.model()
        tilewise.patch(m, format="int4-g128", filter=lambda name, layer: name == "up")
        q, scales = m["up"].q.clone(), m["up"].scales.clone()
        for cast in (lambda x: x.half(), lambda x: x.to(torch.bfloat16), lambda x: x.float(), lambda x: x.half()):
            cast(m)
            self.assertEqual(m["up"].scales.dtype, torch.float16)
            self.assertTrue(torch.equal(m["up"].scales, scales))  # not rounded through another type
            self.assertTrue(torch.equal(m["up"].q, q))
        self.assertEqual(m["head"].weight.dtype, torch.float16)  # the 16-bit layers are cast as before
        m["up"].packed()  # the packed weights are still what their format says

    def test_the_projection_attention_reads_directly_is_left_as_it_is(self):
        m = torch.nn.ModuleDict({"attn": torch.nn.MultiheadAttention(16, 2), "mlp": torch.nn.Linear(16, 16)})
        tilewise.patch(m)
        self.assertNotIsInstance(m["attn"].out_proj, tilewise.Linear)
        self.assertIsInstance(m["mlp"], tilewise.Linear)

    def test_a_shape_the_format_cannot_take_names_the_layer(self):
        m = torch.nn.Sequential(torch.nn.Linear(96, 16, dtype=torch.bfloat16))
        with self.assertRaisesRegex(ValueError, r"layer 0 \(16 x 96\).*multiple of 128 \(the group of 128"):
            tilewise.patch(m, format="int4-g128")
        self.assertIsInstance(m[0], torch.nn.Linear)  # nothing swapped
        with self.assertRaisesRegex(ValueError, "from_linear"):
            tilewise.patch(torch.nn.Linear(64, 64))

    def test_a_weight_the_format_cannot_give_back_names_the_layer(self):
        m = torch.nn.Sequential(torch.nn.Linear(64, 16, dtype=torch.bfloat16),
                                torch.nn.Linear(16, 64, dtype=torch.bfloat16))
        with torch.no_grad():
            m[0].weight[3, 7] = float("nan")
        with self.assertRaisesRegex(ValueError, r"layer 0 \(16 x 64\): q8_0 cannot hold these weights: 1 weight not "
                                                r"finite \(NaN or Inf; the first at row 3, column 7\)"):
            tilewise.patch(m, format="q8_0")
        self.assertIsInstance(m[0], torch.nn.Linear)  # nothing swapped

    def test_the_command_lines_format_names_are_taken(self):
        m = self.model()
        tilewise.patch(m, format="int4g128", filter=lambda name, layer: name == "up")
        self.assertEqual(m["up"].format, "int4-g128")


class Quantize(unittest.TestCase):
    def test_every_format_is_the_librarys_reference_and_within_its_bound(self):
        torch.manual_seed(1)
        w = (torch.randn(48, 512) * torch.logspace(-2, 1, 512)).to(torch.bfloat16)
        for fmt in tilewise.FORMATS:
            with self.subTest(fmt):
                pw = tilewise.quantize(w, fmt)
                deq = tilewise.dequantize(pw)
                self.assertTrue(torch.equal(deq, tilewise.dequantize_reference(pw)))
                err = (deq - w.float()).abs()
                if fmt == "fp8":  # e4m3 keeps 3 mantissa bits: half a step is 1/16 of the value, and subnormals
                    bound = w.float().abs() / 16 + (pw.scales[:, None] * 2.0 ** -10)
                else:  # half a quantization step of the group's scale, and the scale's own fp16 rounding
                    group = 32 if fmt in ("q8_0", "int4-g32") else 128
                    steps = 127 if fmt == "q8_0" else 7
                    amax = w.float().abs().view(48, -1, group).amax(-1, keepdim=True)
                    bound = (amax / steps * 0.51 * (1 + 2.0 ** -10) + amax * 2.0 ** -11).expand(-1, -1, group)
                    bound = bound.reshape(48, 512)
                self.assertTrue(bool((err <= bound).all()), f"{fmt}: worst {float((err - bound).max())} over")

    def test_dequantize_reads_every_byte_as_the_library_does(self):
        torch.manual_seed(2)
        for fmt, code in [("q8_0", 2), ("int4-g32", 3), ("int4-g128", 4), ("fp8", 5)]:
            with self.subTest(fmt):
                pw = tilewise.quantize(torch.zeros(8, 256, dtype=torch.float16), fmt)
                pw.q.copy_(torch.randint(0, 256, pw.q.shape, dtype=torch.uint8))
                if fmt == "fp8":  # NaN codes compare unequal to themselves
                    pw.q[(pw.q & 0x7F) == 0x7F] = 0
                pw.scales.copy_(torch.rand(pw.scales.shape) * 4 - 2)
                self.assertTrue(torch.equal(tilewise.dequantize(pw), tilewise.dequantize_reference(pw)))
                self.assertEqual(tilewise.dequantize(pw, torch.bfloat16).dtype, torch.bfloat16)

    def test_dequantize_refuses_a_dtype_that_is_not_floating_point(self):
        pw = tilewise.quantize(torch.full((4, 256), 148.0, dtype=torch.bfloat16), "q8_0")
        for dtype in (torch.int8, torch.uint8, torch.int32, torch.bool, torch.complex64, "bf16"):
            with self.subTest(str(dtype)):
                with self.assertRaisesRegex(ValueError, "dequantize returns the weights as a floating-point dtype "
                                            r"\(torch.float32, torch.bfloat16, torch.float16, ...\), not "
                                            f"{re.escape(repr(dtype))}"):
                    tilewise.dequantize(pw, dtype)
        for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
            w = tilewise.dequantize(pw, dtype)
            self.assertEqual(w.dtype, dtype)
            self.assertLess(float((w.double() - 148).abs().max()), 1)  # not wrapped to -108

    def test_refuses_what_it_cannot_take(self):
        w = torch.randn(16, 256, dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "unknown format 'int3'"):
            tilewise.quantize(w, "int3")
        with self.assertRaisesRegex(ValueError, "bfloat16 or float16, not torch.float32"):
            tilewise.quantize(w.float(), "q8_0")
        with self.assertRaisesRegex(ValueError, "2-D"):
            tilewise.quantize(w[None], "q8_0")
        with self.assertRaisesRegex(ValueError, r"multiple of 32 \(the group of 32"):
            tilewise.quantize(w[:, :100].contiguous(), "q8_0")
        with self.assertRaisesRegex(ValueError, "contiguous"):
            tilewise.quantize(torch.randn(256, 16, dtype=torch.bfloat16).t(), "q8_0")
        with self.assertRaisesRegex(ValueError, r"apart \(strides \(0, 1\) for 4 x 256\); call .contiguous\(\)"):
            tilewise.quantize(w[:1].expand(4, 256), "q8_0")  # four rows over one row's memory
        pw = tilewise.quantize(w, "q8_0")
        with self.assertRaisesRegex(ValueError, "scales must be"):
            tilewise.PackedWeight(pw.q, pw.scales.float(), "q8_0", 16, 256)
        with self.assertRaisesRegex(ValueError, "multiple of 32"):
            tilewise.PackedWeight(pw.q, pw.scales, "q8_0", 16, 100)

    def test_the_command_lines_format_names_are_taken_for_the_packages(self):
        torch.manual_seed(3)
        w = torch.randn(16, 256, dtype=torch.bfloat16)
        for name, same in [("int4g32", "int4-g32"), ("int4g128", "int4-g128"), ("int8", "q8_0"), ("int4", "int4-g128"),
                           ("q8_0", "q8_0"), ("fp8", "fp8")]:
            with self.subTest(name):
                pw, want = tilewise.quantize(w, name), tilewise.quantize(w, same)
                self.assertEqual(pw.format, same)
                self.assertTrue(torch.equal(pw.q, want.q))
                self.assertTrue(torch.equal(pw.scales, want.scales))
                self.assertEqual(tilewise.PackedWeight(pw.q, pw.scales, name, 16, 256).format, same)
        with self.assertRaisesRegex(ValueError, r"unknown format 'int4_g128'; known: q8_0 \(or int8\), int4-g32 "
                                                r"\(or int4g32\), int4-g128 \(or int4g128, int4\), fp8"):
            tilewise.quantize(w, "int4_g128")
        with self.assertRaisesRegex(ValueError, "unknown format None; known: q8_0"):
            tilewise.PackedWeight(tilewise.quantize(w, "q8_0").q, tilewise.quantize(w, "q8_0").scales, None, 16, 256)

    def test_refuses_weights_it_cannot_give_back(self):
        # What the command line calls NOT FAITHFUL (gemv::find_hazards): a weight not finite, and a group whose fp16
        # scale (max|w| / 127 for q8_0, / 7 for int4) rounds past 65504. At the edge, in bf16: 253 * 2^15 passes
        # q8_0 and 254 * 2^15 (a scale of 65536) does not; for int4, 223 * 2^11 and 224 * 2^11.
        for fmt, group, largest, too_large, limit in [("q8_0", 32, 253 * 2 ** 15, 254 * 2 ** 15, "8.321e\\+06"),
                                                      ("int4-g32", 32, 223 * 2 ** 11, 224 * 2 ** 11, "4.586e\\+05"),
                                                      ("int4-g128", 128, 223 * 2 ** 11, 224 * 2 ** 11, "4.586e\\+05")]:
            with self.subTest(fmt):
                w = torch.full((4, 256), float(largest), dtype=torch.bfloat16)
                self.assertTrue(bool(tilewise.dequantize(tilewise.quantize(w, fmt)).isfinite().all()))
                w = torch.zeros(4, 256, dtype=torch.bfloat16)
                w[2, 37], w[3, 200] = too_large, -1e38
                with self.assertRaisesRegex(ValueError, f"{fmt} cannot hold these weights: 2 groups of {group} whose "
                                            f"fp16 scale, max\\|w\\| / {127 if fmt == 'q8_0' else 7}, is past fp16's "
                                            f"largest 65504 \\(max\\|w\\| must stay under about {limit}; the "
                                            f"first at row 2, column {37 // group * group}\\).*NOT FAITHFUL"):
                    tilewise.quantize(w, fmt)
        for fmt in tilewise.FORMATS:
            for bad in (float("nan"), float("inf"), -float("inf")):
                with self.subTest(fmt=fmt, weight=bad):
                    w = torch.randn(4, 256).half()
                    w[1, 5] = bad
                    w[3, 0] = bad
                    with self.assertRaisesRegex(ValueError, f"{fmt} cannot hold these weights: 2 weights not finite "
                                                r"\(NaN or Inf; the first at row 1, column 5\)"):
                        tilewise.quantize(w, fmt)
        # fp8's fp32 scale holds any finite bf16 weight.
        w = torch.full((4, 256), 1e38, dtype=torch.bfloat16)
        self.assertTrue(bool(tilewise.dequantize(tilewise.quantize(w, "fp8")).isfinite().all()))

    def test_warns_of_scales_under_fp16s_normal_range(self):
        # max|w| / 127 (q8_0) or / 7 (int4) under 2^-14: the scale is an fp16 subnormal, and the weights keep fewer
        # bits. quantize packs them, as the command line writes them, and says so.
        for fmt, tiny in [("q8_0", 2.0 ** -10), ("int4-g32", 2.0 ** -12), ("int4-g128", 2.0 ** -12)]:
            with self.subTest(fmt):
                w = torch.ones(4, 256, dtype=torch.bfloat16)
                w[1, 128:] = tiny
                group = tilewise.packed._GROUP[fmt]
                groups = f"{128 // group} group{'s' if group < 128 else ''} of {group}"
                with self.assertWarnsRegex(UserWarning, f"{groups} {fmt} weights with a max\\|w\\| under about .*"
                                           r"under fp16's normal range.*the first at row 1, column 128"):
                    pw = tilewise.quantize(w, fmt)
                self.assertEqual(pw.format, fmt)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")  # zeros, and weights of a usual size, are held as they are
            for fmt in tilewise.FORMATS:
                tilewise.quantize(torch.zeros(4, 256, dtype=torch.bfloat16), fmt)
                tilewise.quantize(torch.randn(4, 256, dtype=torch.bfloat16) * 0.02, fmt)
            tilewise.quantize(torch.full((4, 256), 2.0 ** -10, dtype=torch.bfloat16), "fp8")  # fp8's scale is fp32
        self.assertEqual([str(m.message) for m in seen if "NOT FAITHFUL" in str(m.message)], [])

    def test_refuses_and_warns_where_the_command_line_says_not_faithful(self):
        tool = os.environ.get("TILEWISE_BIN") or str(pathlib.Path(__file__).resolve().parents[2] / "build" / "release"
                                                     / "tilewise")
        if not os.access(tool, os.X_OK):
            self.skipTest(f"no tilewise command-line tool at {tool} (build it, or set TILEWISE_BIN)")
        torch.manual_seed(4)
        cases = {"normal": torch.randn(2, 128) * 0.02, "zeros": torch.zeros(2, 128),
                 "q8_0 edge": torch.full((2, 128), 253.0 * 2 ** 15), "q8_0 past": torch.full((2, 128), 254.0 * 2 ** 15),
                 "int4 edge": torch.full((2, 128), 223.0 * 2 ** 11), "int4 past": torch.full((2, 128), 224.0 * 2 ** 11),
                 "huge": torch.full((2, 128), 1e38), "tiny": torch.full((2, 128), 2.0 ** -12),
                 "small": torch.full((2, 128), 2.0 ** -10), "nan": torch.zeros(2, 128).index_fill(1, torch.tensor([9]),
                                                                                                   float("nan"))}
        with tempfile.TemporaryDirectory() as folder:
            for label, values in cases.items():
                w = values.to(torch.bfloat16)
                raw = os.path.join(folder, "w.bin")
                with open(raw, "wb") as f:
                    f.write(bytes(w.contiguous().view(torch.uint8).flatten().tolist()))
                for fmt, cli_name in [("q8_0", "q8_0"), ("int4-g32", "int4g32"), ("int4-g128", "int4g128"),
                                      ("fp8", "fp8")]:
                    with self.subTest(label, format=fmt):
                        run = subprocess.run([tool, "quantize", raw, "-o", os.path.join(folder, "w.tww"), "--format",
                                              cli_name, "--rows", "2", "--cols", "128", "--cpu", "--overwrite"],
                                             capture_output=True, text=True)
                        self.assertIn(run.returncode, (0, 1), run.stderr)
                        with warnings.catch_warnings(record=True) as seen:
                            warnings.simplefilter("always")
                            try:
                                tilewise.quantize(w, fmt)
                                refused = False
                            except ValueError:
                                refused = True
                        said = refused or any("NOT FAITHFUL" in str(m.message) for m in seen)
                        self.assertEqual(said, run.returncode == 1, run.stdout)

    def test_one_row_of_weights_is_quantized_whatever_its_row_stride(self):
        # A single row's stride is torch's to choose: a transposed column reads as contiguous with stride (1, 1).
        column = torch.randn(256, 1, dtype=torch.bfloat16)
        row = column.t()
        self.assertTrue(row.is_contiguous())
        got, want = tilewise.quantize(row, "q8_0"), tilewise.quantize(row.clone(memory_format=torch.contiguous_format)
                                                                      .reshape(1, 256), "q8_0")
        self.assertTrue(torch.equal(got.q, want.q))
        self.assertTrue(torch.equal(got.scales, want.scales))

    def test_a_tensor_core_copy_must_match_its_weights(self):
        w = torch.randn(64, 256, dtype=torch.bfloat16)
        pw = tilewise.quantize(w, "int4-g128")
        with self.assertRaisesRegex(ValueError, "the tensor-core copy is made on CUDA"):
            tilewise.quantize(w, "int4-g128", tensor_cores=True)
        with self.assertRaisesRegex(ValueError, "come together"):
            tilewise.PackedWeight(pw.q, pw.scales, "int4-g128", 64, 256, pw.q.clone())
        with self.assertRaisesRegex(ValueError, "q_mma must be a contiguous torch.uint8 tensor of shape"):
            tilewise.PackedWeight(pw.q, pw.scales, "int4-g128", 64, 256, pw.q[:32].clone(), pw.scales.clone())
        for fmt in ("q8_0", "fp8"):  # every packed format has the copy: the same sizes as its q and scales
            p = tilewise.quantize(w, fmt)
            q_copy, scales_copy = p.q.clone(), p.scales.clone()
            with_copy = tilewise.PackedWeight(p.q, p.scales, fmt, 64, 256, q_copy, scales_copy)
            self.assertIs(with_copy.q_mma, q_copy)
            self.assertIs(with_copy.scales_mma, scales_copy)
        both = tilewise.PackedWeight(pw.q, pw.scales, "int4-g128", 64, 256, pw.q.clone(), pw.scales.clone())
        self.assertEqual(both.to("cpu").q_mma.shape, pw.q.shape)
        # A tilewise.Linear keeps the copy: as buffers (saved with the module) and in the weights it passes on.
        layer = tilewise.Linear(256, 64, packed=both)
        self.assertIs(layer.packed().q_mma, both.q_mma)
        self.assertIs(layer.packed().scales_mma, both.scales_mma)
        self.assertIn("q_mma", layer.state_dict())
        self.assertIsNone(tilewise.Linear(256, 64, packed=pw).packed().q_mma)

    def test_the_tensor_core_order_refuses_what_it_cannot_hold_before_any_gpu_work(self):
        from tilewise import _capi
        lib = _capi.lib()
        q = torch.zeros(128, 128, dtype=torch.uint8)
        status = lib.tw_pack_for_tensor_cores(_capi.FORMATS["int4-g128"], 96, 256, q.data_ptr(), q.data_ptr(),
                                              q.data_ptr(), q.data_ptr(), None)
        self.assertEqual(status, _capi.UNSUPPORTED)
        self.assertIn("whole blocks of 64", lib.tw_last_error().decode())


def tensor_core_order(q, scales, fmt, F, K):
    """q and scales in "mma order, version 1" as kernels/sm90/packed_order.h writes them (packed_word,
    packed_byte_word, packed_scale_source; little-endian words), transliterated index for index: what
    tilewise.packed._from_tensor_core_order must undo."""
    def row(t, j):
        return 16 * (t // 32) + (t % 32) // 4 + 8 * ((j // 2) % 2)

    def column(t, s, j):
        return 16 * s + 2 * (t % 4) + j % 2 + 8 * (j // 4)

    rows = q.long()
    if fmt in ("q8_0", "fp8"):
        w = torch.arange(F * K // 4)
        block, within = w // 1024, w % 1024
        half, t = within // 512, within % 512 // 4
        s, h = 2 * half + within % 4 // 2, within % 2
        n0, k0 = block // (K // 64) * 64, block % (K // 64) * 64
        word = sum(rows[n0 + row(t, 4 * h + b), k0 + column(t, s, 4 * h + b)] << (8 * b) for b in range(4))
    else:
        w = torch.arange(F * K // 8)
        block, within = w // 512, w % 512
        t, s = within // 4, within % 4
        n0, k0 = block // (K // 64) * 64, block % (K // 64) * 64
        word = torch.zeros_like(w)
        for j in range(8):
            n, k = n0 + row(t, j), k0 + column(t, s, j)
            word |= ((rows[n, k // 2] >> (4 * (k % 2))) & 0xF) << (4 * (j // 2) + 16 * (j % 2))
    q_mma = torch.stack([(word >> (8 * b)) & 0xFF for b in range(4)], dim=-1).to(torch.uint8).reshape(q.shape)
    if fmt == "fp8":
        return q_mma, scales.clone()
    groups = scales.shape[1]
    i = torch.arange(F * groups)
    source = (i // 64 // groups * 64 + i % 64) * groups + (i // 64) % groups
    return q_mma, scales.flatten()[source].reshape(scales.shape)


class TensorCoreCopyAlone(unittest.TestCase):
    """Packed weights that hold only their tensor-core copy (q_mma, scales_mma; q and scales None)."""

    def copy_alone(self, fmt, F=64, K=256):
        """A PackedWeight of the copy alone, on the CPU: the rows of random weights put in the tensor-core order."""
        pw = tilewise.quantize(torch.randn(F, K, dtype=torch.bfloat16), fmt)
        return pw, tilewise.PackedWeight(None, None, fmt, F, K, *tensor_core_order(pw.q, pw.scales, fmt, F, K))

    def test_the_tensor_core_order_is_undone_exactly(self):
        from tilewise.packed import _from_tensor_core_order
        torch.manual_seed(5)
        for fmt in tilewise.FORMATS:
            for F_, K in ((64, 128), (192, 384), (128, 1024)):
                with self.subTest(fmt, F=F_, K=K):
                    pw = tilewise.quantize(torch.zeros(F_, K, dtype=torch.bfloat16), fmt)
                    pw.q.copy_(torch.randint(0, 256, pw.q.shape, dtype=torch.uint8))  # every bit pattern of a value
                    pw.scales.copy_(torch.randn(pw.scales.shape))  # finite and not 0: equal values, equal bits
                    q_mma, scales_mma = tensor_core_order(pw.q, pw.scales, fmt, F_, K)
                    self.assertFalse(torch.equal(q_mma, pw.q))  # the order moves bytes
                    q, scales = _from_tensor_core_order(q_mma, scales_mma, fmt, F_, K)
                    self.assertTrue(torch.equal(q, pw.q))
                    self.assertTrue(torch.equal(scales, pw.scales))
                    self.assertTrue(q.is_contiguous() and scales.is_contiguous())

    def test_dequantize_reads_the_copy_alone_as_the_rows(self):
        torch.manual_seed(6)
        for fmt in tilewise.FORMATS:
            with self.subTest(fmt):
                rows, alone = self.copy_alone(fmt, 128, 256)
                self.assertTrue(torch.equal(tilewise.dequantize(alone), tilewise.dequantize(rows)))
                self.assertTrue(torch.equal(tilewise.dequantize(alone, torch.bfloat16),
                                            tilewise.dequantize(rows, torch.bfloat16)))
                self.assertTrue(torch.equal(tilewise.dequantize_reference(alone), tilewise.dequantize_reference(rows)))

    def test_quantize_refuses_rows_false_without_the_copy(self):
        w = torch.randn(64, 256, dtype=torch.bfloat16)
        for call in (lambda: tilewise.quantize(w, "int4-g128", rows=False),
                     lambda: tilewise.Linear.from_linear(torch.nn.Linear(256, 64), "q8_0", rows=False)):
            with self.assertRaisesRegex(ValueError, "rows=False keeps the tensor-core copy alone, which needs "
                                                    "tensor_cores=True"):
                call()
        m = torch.nn.Sequential(torch.nn.Linear(256, 64, dtype=torch.bfloat16))
        with self.assertRaisesRegex(ValueError, r"layer 0 \(64 x 256\): rows=False keeps the tensor-core copy alone"):
            tilewise.patch(m, format="int4-g32", rows=False)
        self.assertIsInstance(m[0], torch.nn.Linear)  # nothing swapped
        with self.assertRaisesRegex(ValueError, "the tensor-core copy is made on CUDA"):  # the copy needs the GPU
            tilewise.quantize(w, "int4-g128", tensor_cores=True, rows=False)

    def test_packed_weights_need_a_whole_pair(self):
        pw, alone = self.copy_alone("int4-g128")
        q, scales, q_mma, scales_mma = pw.q, pw.scales, alone.q_mma, alone.scales_mma
        cases = [((None, None, None, None), "packed weights need q and scales \\(rows of K\\), q_mma and scales_mma "
                                            "\\(the tensor-core copy\\), or both; got neither"),
                 ((q, None, None, None), "q and scales come together"),
                 ((None, scales, q_mma, scales_mma), "q and scales come together"),
                 ((None, None, q_mma, None), "q_mma and scales_mma come together"),
                 ((None, None, None, scales_mma), "q_mma and scales_mma come together"),
                 ((None, None, q_mma[:32].clone(), scales_mma),
                  "int4-g128 q_mma must be uint8 of shape \\(64, 128\\), not torch.uint8 \\(32, 128\\)"),
                 ((None, None, q_mma, scales_mma.float()),
                  "int4-g128 scales_mma must be torch.float16 of shape \\(64, 2\\), not torch.float32"),
                 ((None, None, torch.empty(128, 64, dtype=torch.uint8).t(), scales_mma),
                  "q_mma and scales_mma must be contiguous and on one device")]
        with self.assertRaisesRegex(ValueError, "the tensor-core copy is of weights whose F and K are multiples of 64, "
                                                "not q8_0 32 x 256"):  # the order's blocks are 64 x 64
            tilewise.PackedWeight(None, None, "q8_0", 32, 256, torch.empty(32, 256, dtype=torch.uint8),
                                  torch.empty(32, 8, dtype=torch.float16))
        for (q_, s_, qm, sm), message in cases:
            with self.subTest(message):
                with self.assertRaisesRegex(ValueError, message):
                    tilewise.PackedWeight(q_, s_, "int4-g128", 64, 256, qm, sm)
        x = meta(3, 256)
        for args, message in [((None, None, 4, None), "got neither"), ((q.to(META), None, 4, None), "come together"),
                              ((None, None, 4, None, q_mma.to(META), None), "q_mma and scales_mma come together")]:
            with self.subTest(op=message):
                with self.assertRaisesRegex(ValueError, message):
                    torch.ops.tilewise.linear_packed(x, *args)

    def test_a_copy_alone_moves_prints_and_traces(self):
        for fmt in tilewise.FORMATS:
            with self.subTest(fmt):
                _, alone = self.copy_alone(fmt)
                self.assertIsNone(alone.q)
                self.assertIsNone(alone.scales)
                self.assertEqual(alone.device, torch.device("cpu"))
                self.assertIn("tensor-core copy, device=cpu", repr(alone))
                on_meta = alone.to(META)
                self.assertEqual((on_meta.device.type, on_meta.q, on_meta.q_mma.shape), (META, None, alone.q_mma.shape))
                y = tilewise.linear(meta(2, 5, 256, dtype=torch.float16), on_meta, meta(64, dtype=torch.float16))
                self.assertEqual((tuple(y.shape), y.dtype), ((2, 5, 64), torch.float16))
                code = tilewise._capi.FORMATS[fmt]
                from torch.library import opcheck
                opcheck(torch.ops.tilewise.linear_packed.default,
                        (meta(3, 256, requires_grad=True), None, None, code, meta(64), on_meta.q_mma,
                         on_meta.scales_mma))
        with self.assertRaisesRegex(ValueError, "CUDA"):  # the copy alone on the CPU: x is checked as before
            tilewise.linear(torch.randn(4, 256, dtype=torch.bfloat16), alone)

    def test_a_layer_holds_the_copy_alone(self):
        _, alone = self.copy_alone("int4-g32")
        layer = tilewise.Linear(256, 64, packed=alone)
        self.assertEqual(set(layer.state_dict()), {"q_mma", "scales_mma"})
        self.assertIsNone(layer.packed().q)
        self.assertIs(layer.packed().q_mma, alone.q_mma)
        layer.half()  # a cast leaves the copy as it is, a move moves it
        self.assertEqual(layer.scales_mma.dtype, torch.float16)
        self.assertTrue(torch.equal(layer.q_mma, alone.q_mma))
        self.assertEqual(layer.to(META).packed().device.type, META)
        y = layer(meta(7, 256))
        self.assertEqual(tuple(y.shape), (7, 64))
        model = torch.nn.Sequential(layer, torch.nn.GELU(),
                                    tilewise.Linear(64, 64, packed=self.copy_alone("q8_0", 64, 64)[1].to(META)))
        ops = [n.target for n in torch.export.export(model, (meta(4, 256),)).graph.nodes if n.op == "call_function"]
        self.assertEqual(ops.count(torch.ops.tilewise.linear_packed.default), 2, ops)


class BadInput(unittest.TestCase):
    def test_linear_names_what_is_wrong(self):
        x, w = torch.randn(4, 256, dtype=torch.bfloat16), torch.randn(64, 256, dtype=torch.bfloat16)
        cases = [
            ((x, w), "x must be a CUDA tensor, not on cpu"),
            ((x.float(), w.float()), "x must be torch.bfloat16 or torch.float16, not torch.float32"),
            ((meta(4, 256), meta(64, 256, dtype=torch.float16)), "w must be torch.bfloat16, not torch.float16"),
            ((meta(4, 256), meta(64, 128)), "must share K"),
            ((meta(4, 256), meta(2, 64, 256)), "w must have 2 dimensions"),
            ((meta(4, 256), meta(64, 256), meta(63)), "bias must have F = 64 elements"),
            ((meta(4, 256), meta(64, 256), meta(64, dtype=torch.float16)), "bias must be torch.bfloat16"),
            ((meta(4, 256, dtype=torch.float8_e4m3fn), meta(64, 256, dtype=torch.float8_e4m3fn)),
             "fp8 x and w need x_scale and w_scale"),
        ]
        cases += [((x, "w"), "w must be a tensor or a tilewise.PackedWeight, not str"),
                  ((x, w, 5), "bias must be a tensor or None, not int"),
                  ((None, w), "x must be a tensor, not NoneType"),
                  ((torch.empty((), dtype=torch.bfloat16, device=META), meta(64, 256)),
                   r"x must have 1 to 63 dimensions, not shape \(\)")]
        for args, message in cases:
            with self.subTest(message):
                with self.assertRaisesRegex(ValueError, message):
                    tilewise.linear(*args)
        with self.assertRaisesRegex(ValueError, "contiguous"):
            torch.ops.tilewise.linear(x.t().contiguous().t(), w, None)  # checked before the device, on real tensors
        pw = tilewise.quantize(w, "q8_0")
        with self.assertRaisesRegex(ValueError, "CUDA"):
            tilewise.linear(x, pw)
        with self.assertRaisesRegex(ValueError, "does not fit packed q8_0"):
            tilewise.linear(meta(4, 96), pw.to(META))
        with self.assertRaisesRegex(ValueError, "x_scale and w_scale are for fp8"):
            tilewise.linear(x, pw, x_scale=torch.ones(()))

    def test_packed_weights_take_whole_sizes_only(self):
        pw = tilewise.quantize(torch.randn(64, 256, dtype=torch.bfloat16), "q8_0")
        tilewise.PackedWeight(pw.q, pw.scales, "q8_0", 64, 256)  # cached: 64.0 below must not hit it
        for out_features, shown in ((64.0, "64.0"), ("64", "'64'"), (True, "True"), (2**70, str(2**70)), (0, "0")):
            with self.subTest(shown):
                with self.assertRaisesRegex(ValueError, "out_features must be a whole number from 1 below 2\\^63, "
                                                        f"not {re.escape(shown)}"):
                    tilewise.PackedWeight(pw.q, pw.scales, "q8_0", out_features, 256)

    def load_from(self, path):
        """tilewise._capi.lib() with TILEWISE_LIBRARY=path, the loaded library and the variable restored after."""
        loaded, before = tilewise._capi._lib, os.environ.get("TILEWISE_LIBRARY")
        try:
            tilewise._capi._lib = None
            os.environ["TILEWISE_LIBRARY"] = path
            return tilewise._capi.lib()
        finally:
            tilewise._capi._lib = loaded
            if before is None:
                del os.environ["TILEWISE_LIBRARY"]
            else:
                os.environ["TILEWISE_LIBRARY"] = before

    def test_a_missing_library_is_an_import_error_saying_where_it_looked(self):
        with self.assertRaisesRegex(ImportError, "cannot load its C library /nonexistent/libtilewise_c.so"):
            self.load_from("/nonexistent/libtilewise_c.so")

    def test_a_library_of_another_abi_is_an_import_error_naming_its_version(self):
        # Any shared library without tw_abi_version (the C library) reads as version none, not as a missing symbol.
        with self.assertRaisesRegex(ImportError,
                                    f"has C ABI version none, this package needs {tilewise._capi.ABI_VERSION}"):
            self.load_from("libc.so.6")

    def test_the_package_the_header_and_the_library_agree_on_the_abi_version(self):
        # A function added to the C ABI bumps TW_ABI_VERSION; the package must say the same number, and so must the
        # library it loaded (built from that header).
        header = pathlib.Path(__file__).resolve().parents[2] / "include" / "tilewise" / "tilewise.h"
        found = re.search(r"^#define TW_ABI_VERSION (\d+)$", header.read_text(), re.M)
        self.assertIsNotNone(found, f"no TW_ABI_VERSION in {header}")
        self.assertEqual(tilewise._capi.ABI_VERSION, int(found.group(1)))
        self.assertEqual(tilewise._capi.lib().tw_abi_version(), int(found.group(1)))

if __name__ == "__main__":
    unittest.main()
