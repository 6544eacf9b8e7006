"""The peer runner's per-problem order, without a GPU: torch is replaced by a stand-in that logs what would run.
The baseline arm is prepared first; its graph re-warms before the other arms are prepared and again before the
timed repeats; the receipt lists the arms in the order given."""
import contextlib
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "peers"))
if "torch" not in sys.modules:  # the runner imports torch at module level; CI has none
    stand_in = types.ModuleType("torch")
    stand_in._dynamo = types.ModuleType("torch._dynamo")
    sys.modules.update({"torch": stand_in, "torch._dynamo": stand_in._dynamo})
import receipt as rc  # noqa: E402
import run  # noqa: E402


class Graph:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def replay(self):
        self.log.append(("replay", self.name))


class Problem:
    def __init__(self):
        self.p, self.sets, self.seed = rc.problem("sq", 256, 256, 256, "bf16", "TN"), 1, 1

    def check_reference(self):
        return {"samples": 256, "max_err": 0.0, "bound": rc.REFERENCE_BOUND, "ok": True}

    def judge(self, out):
        return 1e-3, 1e-3


class Clocks:
    def mark(self):
        return 0.0

    def within(self, intervals):
        return []


class Order(unittest.TestCase):
    def setUp(self):
        self.log, self.failing = [], set()
        log = self.log
        saved = {name: getattr(run, name) for name in ("torch", "make_arm", "time_graph", "time_host_loop",
                                                       "capture_stream")}
        self.saved_make_arm = saved["make_arm"]
        self.addCleanup(lambda: [setattr(run, name, value) for name, value in saved.items()])
        run.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(synchronize=lambda: None,
                                                                     stream=lambda s: contextlib.nullcontext()))
        run.capture_stream = lambda: None

        def make_arm(name, prob):
            log.append(("prepare", name))
            if name in self.failing:
                raise RuntimeError(f"{name} cannot run")
            return (lambda s: name), (lambda s: name), {"family": name}, name

        def time_graph(fn, launches, sets, replays):
            # the sizing probe measures once, the repeats self.args.replays times
            return Graph(fn(0), log), lambda count: log.append(("timed" if count > 1 else "probe", fn(0))) or 10.0

        run.make_arm, run.time_graph = make_arm, time_graph
        run.time_host_loop = lambda fn, launches, sets: log.append(("host", fn(0))) or 10.5
        self.args = types.SimpleNamespace(baseline="torch", rewarm_ms=1.0, repeats=2, replays=3, graph_ms=2.0)

    def steps(self):
        """The log without sizing probes, runs of one step collapsed: [("prepare", "torch"), ("replay", "torch")...]."""
        out = []
        for entry in self.log:
            if entry[0] != "probe" and (not out or out[-1] != entry):
                out.append(entry)
        return out

    def test_baseline_first_and_its_graph_rewarms_twice(self):
        result = run.measure(Problem(), ["triton", "torch"], self.args, Clocks(), [])
        self.assertEqual(self.steps()[:4], [("prepare", "torch"), ("replay", "torch"), ("prepare", "triton"),
                                            ("replay", "torch")])
        self.assertEqual(self.steps()[4][0], "host")
        self.assertNotIn("replay", [step for step, _ in self.steps()[4:]])
        self.assertEqual([arm["arm"] for arm in result["arms"]], ["triton", "torch"])
        self.assertEqual([c["baseline"] for c in result["comparisons"]], ["torch"])

    def test_each_arms_timed_replays_follow_its_own_host_loop(self):
        # docs/notes/2026-12-05-timing-carryover.md: what ran just before can move a kernel between two speeds
        run.measure(Problem(), ["triton", "torch"], self.args, Clocks(), [])
        timed = [step for step in self.steps() if step[0] in ("host", "timed")]
        self.assertEqual(len(timed), 2 * 2 * self.args.repeats)
        for host, replays in zip(timed[::2], timed[1::2]):
            self.assertEqual((host[0], replays[0], host[1]), ("host", "timed", replays[1]))

    def test_a_failed_baseline_rewarms_on_the_next_arm(self):
        self.failing = {"torch"}
        result = run.measure(Problem(), ["torch", "triton"], self.args, Clocks(), [])
        self.assertEqual(self.steps()[:3], [("prepare", "torch"), ("prepare", "triton"), ("replay", "triton")])
        self.assertIn("torch cannot run", result["arms"][0]["error"])

    def test_an_arm_whose_op_does_not_take_the_layout_is_declined_not_failed(self):
        stand_in, real = run.make_arm, self.saved_make_arm
        run.make_arm = lambda name, prob: real(name, prob) if name == "tilewise" else stand_in(name, prob)
        nn = Problem()
        nn.p = rc.problem("sq", 256, 256, 256, "bf16", "NN")
        result = run.measure(nn, ["torch", "tilewise"], self.args, Clocks(), [])
        torch_arm, tilewise = result["arms"]
        self.assertIn("layout TN only", tilewise["declined"])  # decided before the package is imported
        self.assertEqual((tilewise["error"], tilewise["us"], tilewise["launches"]), ("", [], 0))
        self.assertTrue(torch_arm["correct"])
        self.assertEqual(result["comparisons"], [])


if __name__ == "__main__":
    unittest.main()
