"""The decode-step benchmark's plumbing on the CPU (needs torch; exits 77, which ctest reports as skipped, without
it): the dry run's receipt judged by tilewise's checker and by the step checks, tampering caught, options refused
before any work, and torch's weight-only formats against the weights they claim to compute with."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, "..", "..", "bench", "peers")
sys.path.insert(0, PEERS)
TILEWISE = os.environ.get("TILEWISE_BIN", "build/release/tilewise")
try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    import decode_step
    import decoder
    import linears
    import receipt as rc

# What a CPU dry run cannot have, and says: no NVML clocks, a warm-up under the protocol's floor.
DRY_RUN_PROBLEMS = {"clocks were not sampled: no GPU: clocks are sampled only on a GPU run"}
DRY_RUN_WARMUP = "is under the 10 s floor"


def checker_problems(path):
    out = subprocess.run([TILEWISE, "check", path], capture_output=True, text=True)
    return out.returncode, [line.strip()[2:] for line in out.stdout.splitlines() if line.strip().startswith("- ")]


@unittest.skipIf(torch is None, "needs torch")
class DryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "dry.json")
        cls.done = subprocess.run([sys.executable, os.path.join(PEERS, "decode_step.py"), "--device", "cpu",
                                  "--dry-run", "--arms", "torch-bf16,torch-int8,torch-int4-g128,no-linears",
                                  "--tilewise", TILEWISE, "-o", cls.path], capture_output=True, text=True, cwd=HERE)
        cls.receipt = None
        if os.path.exists(cls.path):
            with open(cls.path) as f:
                cls.receipt = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_the_checker_finds_only_what_a_dry_run_lacks(self):
        self.assertIsNotNone(self.receipt, self.done.stderr[-2000:])
        code, found = checker_problems(self.path)
        self.assertNotEqual(code, 0)  # a dry run is not a measurement
        rest = [p for p in found if p not in DRY_RUN_PROBLEMS and DRY_RUN_WARMUP not in p]
        self.assertEqual(rest, [], self.done.stderr[-2000:])
        self.assertEqual(len(found), 2, found)
        self.assertEqual(sorted(self.receipt["problems"]), sorted(found))  # the runner wrote what the checker says
        self.assertEqual(self.done.returncode, 1)

    def test_every_step_and_arm_ran_and_carries_its_figures(self):
        r = self.receipt
        self.assertEqual([x["problem"]["name"] for x in r["results"]],
                         ["tiny-L2-T1-ctx32", "tiny-L2-T2-ctx32", "tiny-L2-prefill16-ctx32"])
        self.assertEqual(rc.check_steps(r), [])
        for result in r["results"]:
            self.assertEqual([a["arm"] for a in result["arms"]],
                             ["torch-bf16", "torch-int8", "torch-int4-g128", "no-linears"])
            for arm in result["arms"]:
                with self.subTest(result=result["problem"]["name"], arm=arm["arm"]):
                    s = arm["step"]
                    self.assertTrue(arm["correct"], arm["error"])
                    self.assertEqual(len(arm["us"]), r["protocol"]["repeats"])
                    self.assertEqual(len(s["layer_rel_err"]), 2)
                    self.assertAlmostEqual(s["tokens_per_s"], result["problem"]["N"] * 1e6 / arm["us_median"])
                    if arm["arm"] == "no-linears":
                        self.assertEqual((s["linears_us"], arm.get("weight_bytes", 0)), ([], 0))
                    else:
                        self.assertEqual(len(s["linears_us"]), r["protocol"]["repeats"])
                        self.assertGreater(arm["weight_bytes"], 0)
        quantized = r["results"][0]["arms"][2]
        self.assertEqual(quantized["reference_check"]["ok"], True)
        # int4's rounding shows against the bf16 weights, not against the weights it computes with
        self.assertGreater(quantized["step"]["model_final_rel_err"], 10 * quantized["step"]["final_rel_err"])

    def test_tampering_with_a_step_figure_or_bound_is_caught(self):
        tampered = [("tokens_per_s", lambda s: s.update(tokens_per_s=s["tokens_per_s"] * 1.1)),
                    ("bounds", lambda s: s["bounds"].update(model_layer=1.0)),
                    ("model errors", lambda s: s.update(model_layer_rel_err=[0.5] * len(s["model_layer_rel_err"])))]
        for what, change in tampered:
            with self.subTest(what):
                r = copy.deepcopy(self.receipt)
                change(r["results"][0]["arms"][1]["step"])
                found = rc.check_steps(r)
                self.assertEqual(len(found), 1, found)
                self.assertIn("[torch-int8]", found[0])


@unittest.skipIf(torch is None, "needs torch")
class Judging(unittest.TestCase):
    """What an arm is judged by, on one tiny step: each layer alone, and the output of the run that is timed."""

    def setUp(self):
        torch.set_grad_enabled(False)
        self.addCleanup(torch.set_grad_enabled, True)
        shape = decoder.SHAPES["tiny"]
        self.weights = decoder.Weights(shape, 2, "cpu", 1)
        self.batch = decoder.Batch(shape, 2, 2, 8, False, "cpu", 2)
        self.model_ref, _ = decode_step.checked_reference(self.batch, self.weights, linears.TorchBf16(),
                                                          self.weights.linear)
        self.p = rc.step_problem("t", 2, shape.layer_weights(), shape.hidden, 2)
        self.a = types.SimpleNamespace(graph_ms=0.1, replays=1)

    def prepare(self, arm):
        return decode_step.prepare(arm, self.weights.linear, self.batch, self.weights, self.model_ref, self.p,
                                   self.a)["arm"]

    def skewed(self, first, last):
        """torch's bf16 arm whose outputs are 20% off on its calls first..last-1 (8 calls a step here)."""
        arm, calls, apply = linears.TorchBf16(), [0], linears.TorchBf16.apply

        def skew(x, w):
            calls[0] += 1
            return apply(arm, x, w) * (1.2 if first < calls[0] <= last else 1.0)
        arm.apply = skew
        return arm

    def test_a_right_arm_passes(self):
        entry = self.prepare(linears.TorchBf16())
        self.assertTrue(entry["correct"], entry["error"])

    def test_a_wrong_timed_run_fails_though_each_layer_alone_is_right(self):
        entry = self.prepare(self.skewed(8, 16))  # the warm-up call is right, the timed run's is not
        self.assertFalse(entry["correct"])
        self.assertIn("the step's graph errs", entry["error"])
        self.assertLess(max(entry["step"]["layer_rel_err"]), 1e-2)

    def test_a_wrong_layer_fails(self):
        entry = self.prepare(self.skewed(16, 10 ** 9))  # right in the warm-up and the timed run, wrong after
        self.assertFalse(entry["correct"])
        self.assertGreater(entry["rel_err"], 1e-2)


@unittest.skipIf(torch is None, "needs torch")
class Options(unittest.TestCase):
    def refused(self, *argv):
        with self.assertRaises(SystemExit) as caught, open(os.devnull, "w") as quiet:
            saved, sys.stderr = sys.stderr, quiet
            try:
                decode_step.parse_args(list(argv))
            finally:
                sys.stderr = saved
        self.assertEqual(caught.exception.code, 2)

    def test_bad_options_are_refused_before_any_work(self):
        with tempfile.NamedTemporaryFile() as existing:
            self.refused("--device", "cpu", "-o", "x.json")                 # the CPU runs only the dry run
            self.refused("--dry-run", "-o", existing.name)                  # no --overwrite
            self.refused("--dry-run", "--models", "llama9:1", "-o", "x.json")
            self.refused("--dry-run", "--tokens", "0", "-o", "x.json")
            self.refused("--dry-run", "--graph-ms", "0", "-o", "x.json")
            self.refused("--dry-run", "-o", "/nonexistent-folder/x.json")
        a = decode_step.parse_args(["--dry-run", "-o", "x.json"])
        self.assertEqual((a.models, a.tokens, a.prefill, a.context), ([("tiny", 2)], [1, 2], 16, 32))
        a = decode_step.parse_args(["-o", "x.json"])
        self.assertEqual((a.models, a.tokens, a.prefill, a.repeats), ([("llama3-8b", 8), ("llama3-70b", 1)],
                                                                     [1, 2, 4, 8, 16], 512, 10))


@unittest.skipIf(torch is None, "needs torch")
class TorchWeightOnly(unittest.TestCase):
    def test_each_format_computes_with_the_weights_it_reports_and_errs_as_documented(self):
        gen = torch.Generator().manual_seed(5)
        w = torch.randn(256, 4096, generator=gen).to(torch.bfloat16)
        x = torch.randn(3, 4096, generator=gen).to(torch.bfloat16)
        for arm in (linears.TorchInt8(), linears.TorchInt4()):
            with self.subTest(arm.name):
                kept = arm.prepare(w)
                seen = arm.seen(kept)
                want = x.float() @ seen.t()
                self.assertLess(decoder.relative_error(arm.apply(x, kept), want), 1e-2)
                weight_err = ((seen - w.float()).norm() / w.float().norm()).item()
                documented = rc.WEIGHT_ERROR[arm.weight_format]
                self.assertLess(weight_err, documented)
                self.assertGreater(weight_err, 0.8 * documented)  # the documented figure is not loose

    def test_the_step_problem_holds_the_steps_weights(self):
        shape = decoder.SHAPES["llama3-8b"]
        p = rc.step_problem("s", 8, shape.layer_weights(), shape.hidden, 4)
        self.assertEqual((p["M"], p["N"], p["K"]), (8 * 53248, 4, 4096))
        self.assertEqual(p["M"] * p["K"], 8 * sum(f * k for _, f, k in shape.linears()))


if __name__ == "__main__":
    if torch is None:
        print("torch is not installed: the decode-step tests need it (skipped)")
        sys.exit(77)
    unittest.main()
