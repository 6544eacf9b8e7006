"""The peer runner's receipt builder, judged by tilewise's own checker (no GPU): a receipt built from scripted
samples is valid, and a tampered one is not."""
import copy
import json
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
    r = {"schema": rc.SCHEMA, "created": "2026-11-30T00:00:00Z", "command": "test", "notes": [],
         "tool": {"name": "tilewise-peers", "version": "torch x, triton y", "commit": "abc", "dirty": False},
         "machine": {"gpu": "NVIDIA H200", "sm_count": 132, "cc": "9.0", "l2_bytes": 62914560,
                     "smem_per_block_optin": 232448, "memory_bytes": 150 << 30, "driver": "580", "cuda_runtime": "13.0",
                     "cublaslt": "n/a", "nvrtc": "n/a", "sm_clock_max_mhz": 1980, "mem_clock_max_mhz": 3201,
                     "power_limit_w": 700.0, "read_bw": {"bytes": 4 << 30, "us": [955.0, 950.0, 960.0]}},
         "protocol": {"warmup_s": 10.2, "repeats": 3, "cold": True, "rotation_sets": 0,
                      "working_set_bytes": rc.COLD_L2_MULTIPLE * 62914560, "timing": "graph-replay+host-loop",
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

    def test_problem_refuses_other_dtypes(self):
        with self.assertRaises(ValueError):
            rc.problem("x", 1, 1, 1, "fp8", "TN")


if __name__ == "__main__":
    unittest.main()
