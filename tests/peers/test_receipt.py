"""The peer runner's receipt builder, judged by tilewise's own checker (no GPU): a receipt built from scripted
samples is valid, and a tampered one is not."""
import copy
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "peers"))
import receipt as rc  # noqa: E402

TILEWISE = os.environ.get("TILEWISE_BIN", "build/release/tilewise")


def sample():
    samples = [{"t_s": 1.0 + i, "sm_mhz": 1700 + 10 * i, "mem_mhz": 3201, "power_w": 600.0 + i, "temp_c": 50 + i,
                "reasons": 0x4} for i in range(5)]
    r = {"schema": rc.SCHEMA, "created": "2026-11-30T00:00:00Z", "command": "test",
         "notes": [rc.rewarm_note("torch", 100.0)],
         "tool": {"name": "tilewise-peers", "version": "torch x, triton y", "commit": "abc", "dirty": False},
         "machine": {"gpu": "NVIDIA H200", "sm_count": 132, "cc": "9.0", "l2_bytes": 62914560,
                     "smem_per_block_optin": 232448, "memory_bytes": 150 << 30, "driver": "580", "cuda_runtime": "13.0",
                     "cublaslt": "n/a", "nvrtc": "n/a", "sm_clock_max_mhz": 1980, "mem_clock_max_mhz": 3201,
                     "power_limit_w": 700.0, "read_bw": {"bytes": 4 << 30, "us": [955.0, 950.0, 960.0]}},
         "protocol": {"warmup_s": 10.2, "repeats": 3, "cold": True, "rotation_sets": 0,
                      "working_set_bytes": rc.COLD_L2_MULTIPLE * 62914560, "timing": rc.timing(["torch", "triton"]),
                      "arms": ["torch", "triton"], "baseline": "torch", "seed": 7, "graph_target_ms": 2.0,
                      "replays": 3, "selection_rounds": 1, "rewarm_ms": 100.0},
         "clocks": {"available": True, "unavailable_reason": "", "before": samples[0], "after": samples[-1],
                    "during": rc.summarize(samples)},
         "results": [], "skipped": [], "preregistration": None, "problems": [], "valid": False}
    r["machine"]["read_bw_gbps"] = rc.read_bw_gbps(r["machine"]["read_bw"])
    for name, m, n, k, times in [("dec", 16, 12288, 4096, ([26.0, 26.2, 26.1], [25.0, 25.1, 24.9])),
                                 ("big", 4096, 4096, 4096, ([200.0, 201.0, 202.0], [210.0, 211.0, 209.0]))]:
        p = rc.problem(name, m, n, k, "bf16", "TN")
        sets = rc.rotation_sets(p, True, 62914560)
        res = {"problem": p, "rotation_sets": sets, "working_set_bytes": sets * rc.rotation_set_bytes(p), "seed": 1,
               "reference": {"samples": 256, "max_err": 2e-7, "bound": rc.REFERENCE_BOUND, "ok": True}, "arms": []}
        for arm_name, us in zip(["torch", "triton"], times):
            arm = rc.arm_result(arm_name, p, {"family": arm_name}, arm_name)
            arm.update(correct=True, rel_err=2e-3, max_abs_err=0.01, launches=90, host_launches=90, us=us,
                       host_us=[u * 1.02 for u in us], clock=rc.summarize(samples))
            res["arms"].append(arm)
        r["results"].append(rc.finish_result(res, "torch"))
        r["protocol"]["rotation_sets"] = max(r["protocol"]["rotation_sets"], sets)
    return r


# Abridged from the code Inductor generates for torch.mm under max-autotune: a Triton template, and the ATen route.
INDUCTOR_TEMPLATE_CODE = """
from torch._inductor.select_algorithm import extern_kernels
triton_tem_fused_mm_0 = async_compile.triton('triton_tem_fused_mm_0', '''
@triton_heuristics.template(
    num_stages=3,
    num_warps=8,
    triton_meta={'signature': {'arg_A': '*bf16', 'arg_B': '*bf16', 'out_ptr0': '*bf16'}, 'constants': {}},
    inductor_meta={'kernel_name': 'triton_tem_fused_mm_0'},
)
@triton.jit
def triton_tem_fused_mm_0(arg_A, arg_B, out_ptr0):
    GROUP_M : tl.constexpr = 8
    EVEN_K : tl.constexpr = True
    ALLOW_TF32 : tl.constexpr = False
    ACC_TYPE : tl.constexpr = tl.float32
    BLOCK_M : tl.constexpr = 128
    BLOCK_N : tl.constexpr = 256
    BLOCK_K : tl.constexpr = 64
''', device_str='cuda')

def call(args):
    arg0_1, arg1_1 = args
    buf0 = empty_strided_cuda((4096, 4096), (4096, 1), torch.bfloat16)
    triton_tem_fused_mm_0.run(arg0_1, arg1_1, buf0, stream=stream0)
    return (buf0, )
"""
INDUCTOR_ATEN_CODE = """
from torch._inductor.select_algorithm import extern_kernels

def call(args):
    arg0_1, arg1_1 = args
    buf0 = empty_strided_cuda((4096, 4096), (4096, 1), torch.bfloat16)
    extern_kernels.mm(arg0_1, arg1_1, out=buf0)
    return (buf0, )
"""


def check(r):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "peers.json")
        rc.write(r, path)
        out = subprocess.run([TILEWISE, "check", path], capture_output=True, text=True)
        return out.returncode, out.stdout


class PeerReceipt(unittest.TestCase):
    def test_scripted_receipt_is_valid(self):
        code, out = check(sample())
        self.assertEqual(code, 0, out)
        self.assertIn("valid", out)

    def test_a_compressed_receipt_reads_as_tilewise_reads_it(self):
        with tempfile.TemporaryDirectory() as d:
            plain, compressed = os.path.join(d, "peers.json"), os.path.join(d, "peers.json.gz")
            rc.write(sample(), plain)
            rc.write(sample(), compressed)  # a .json.gz name is written compressed, as tilewise writes it
            with open(compressed, "rb") as f:
                self.assertEqual(f.read(2), b"\x1f\x8b")
            self.assertEqual(rc.load(compressed), rc.load(plain))
            checked = subprocess.run([TILEWISE, "check", compressed], capture_output=True, text=True)
            self.assertEqual(checked.returncode, 0, checked.stdout)
            with open(compressed, "r+b") as f:
                f.truncate(40)
            with self.assertRaisesRegex(ValueError, "peers.json.gz: not valid gzip"):
                rc.load(compressed)

    def test_tampered_figure_is_caught(self):
        r = sample()
        r["results"][1]["arms"][1]["tflops"] *= 1.1
        code, out = check(r)
        self.assertNotEqual(code, 0)
        self.assertIn("tflops", out)

    def test_claim_and_speedup_match_the_checker(self):
        r = sample()
        dec = r["results"][0]["comparisons"][0]
        self.assertEqual((dec["arm"], dec["baseline"], dec["claim"]), ("triton", "torch", "faster"))
        self.assertAlmostEqual(dec["speedup"], 26.1 / 25.0)
        big = copy.deepcopy(r)
        big["results"][1]["comparisons"][0]["claim"] = "faster"
        code, out = check(big)
        self.assertNotEqual(code, 0, out)

    def test_incorrect_arm_carries_no_throughput(self):
        r = sample()
        arm = r["results"][0]["arms"][1]
        arm.update(correct=False, rel_err=0.5)
        rc.finish_result(r["results"][0], "torch")
        self.assertIsNone(arm["tflops"])
        code, out = check(r)
        self.assertNotEqual(code, 0)
        self.assertIn("incorrect", out)

    def test_launch_counts_and_rotation_follow_the_cpp_rules(self):
        self.assertEqual(rc.launches_for(10.0, 2.0, 3), 201)
        self.assertEqual(rc.launches_for(3000.0, 2.0, 1), 1)
        self.assertEqual(rc.rotation_sets(rc.problem("d", 1, 12288, 4096, "bf16", "TN"), True, 62914560), 3)
        self.assertEqual(rc.summarize([{"sm_mhz": s, "power_w": 1.0, "temp_c": 1, "reasons": 0}
                                       for s in (1500, 1501)])["sm_mhz_median"], 1501)  # lround, not banker's

    def test_protocol_says_what_the_rewarm_and_each_host_loop_are(self):
        r = sample()
        self.assertIn("baseline arm's own graph (torch), replayed for 100 ms", r["notes"][0])
        self.assertTrue(r["protocol"]["timing"].startswith("graph-replay+host-loop (host-loop launch: torch: "))
        self.assertIn("triton: one replay of a captured CUDA graph of a single launch of the torch.compile",
                      r["protocol"]["timing"])
        self.assertEqual(rc.timing(["cublaslt"]), "graph-replay+host-loop")

    def test_order_note_is_worded_as_tilewises_runner_words_it(self):
        runner = os.path.join(os.path.dirname(__file__), "..", "..", "src", "bench", "runner.cpp")
        with open(runner, encoding="utf-8") as f:
            self.assertIn(f'"{rc.ORDER_NOTE}"', f.read())

    def test_triton_kernel_must_be_a_template(self):
        kernel = rc.triton_kernel([INDUCTOR_TEMPLATE_CODE])
        self.assertEqual(kernel, {"templates": ["triton_tem_fused_mm_0"], "num_stages": 3, "num_warps": 8,
                                  "GROUP_M": 8, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64})
        with_copy = INDUCTOR_TEMPLATE_CODE + "triton_poi_fused_clone_0.run(arg0_1, buf1, stream=stream0)"
        self.assertEqual(rc.triton_kernel([with_copy])["other_kernels"], ["triton_poi_fused_clone_0"])
        for codes, why in [([], "no generated code"), ([INDUCTOR_ATEN_CODE], "cuBLAS through ATen"),
                           ([INDUCTOR_TEMPLATE_CODE, INDUCTOR_ATEN_CODE], "a template beside an ATen call")]:
            with self.subTest(why):
                with self.assertRaises(ValueError) as caught:
                    rc.triton_kernel(codes)
                self.assertIn("did not run the GEMM in a Triton template", str(caught.exception))

    def test_decode_step_bounds_follow_the_rule(self):
        b = rc.step_bounds("int4-g128", 4)
        self.assertAlmostEqual(b["layer"], 1e-2)
        self.assertAlmostEqual(b["final"], 2e-2)  # times sqrt(4 layers)
        self.assertAlmostEqual(b["model_layer"], 1e-2 + 2 * 0.118)
        self.assertAlmostEqual(b["model_final"], 2 * (1e-2 + 2 * 0.118))
        self.assertEqual((rc.step_bounds(None, 1)["model_layer"], rc.step_bounds(None, 1)["model_final"]), (None, None))

    def test_decode_step_problem_holds_the_steps_weights_or_refuses(self):
        p = rc.step_problem("s", 2, 256 * 2304, 256, 16)
        self.assertEqual((p["M"], p["N"], p["K"], p["layout"]), (2 * 2304, 16, 256, "TN"))
        with self.assertRaises(ValueError):
            rc.step_problem("s", 2, 1000, 256, 16)

    def test_problem_refuses_other_dtypes(self):
        with self.assertRaises(ValueError):
            rc.problem("x", 1, 1, 1, "fp8", "TN")


if __name__ == "__main__":
    unittest.main()
