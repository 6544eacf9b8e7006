"""The peer runners' host path and clocks without a GPU: the host loop's order of work with torch's events stood in
for, and NVML's absence said, not hidden."""
import contextlib
import gc
import os
import sys
import types
import unittest
import weakref

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "peers"))
if "torch" not in sys.modules:  # the harness imports torch at module level; these tests need none
    sys.modules["torch"] = types.ModuleType("torch")
import harness  # noqa: E402
import nvml  # noqa: E402


class Event:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def record(self):
        self.log.append(("record", self.name))

    def synchronize(self):
        self.log.append(("synchronize", self.name))

    def elapsed_time(self, other):
        return 3.0  # ms


class HostLoop(unittest.TestCase):
    def setUp(self):
        self.log = []
        names = iter(["start", "stop"])
        saved = harness.torch
        self.addCleanup(lambda: setattr(harness, "torch", saved))
        harness.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(
            Event=lambda enable_timing: Event(self.log, next(names))))

    def test_the_timed_launches_queue_behind_one_untimed_launch_and_are_timed_on_the_stream(self):
        us = harness.time_host_loop(lambda s: self.log.append(("launch", s)), 6, 3)
        self.assertEqual(self.log, [("launch", 2), ("record", "start")] + [("launch", i % 3) for i in range(6)] +
                         [("record", "stop"), ("synchronize", "stop")])
        self.assertAlmostEqual(us, 3000.0 / 6)


class GraphPath(unittest.TestCase):
    """A captured graph replays into the tensors its launch function's closure holds, and a graph does not keep them
    alive: time_graph's measure must (the 70B decode step replayed into freed inputs without it)."""

    def setUp(self):
        self.log = []
        saved = harness.torch, harness._capture
        self.addCleanup(lambda: (setattr(harness, "torch", saved[0]), setattr(harness, "_capture", saved[1])))
        log = self.log
        graph = types.SimpleNamespace(replay=lambda: log.append("replay"))
        harness._capture = None
        harness.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(
            CUDAGraph=lambda: graph, Stream=object, graph=lambda g, stream: contextlib.nullcontext(),
            Event=lambda enable_timing: Event(log, "event")))

    def test_measure_keeps_what_the_graph_reads_alive(self):
        def capture():
            inputs = [object()]  # stands for the tensors the launches read

            def launch(s):
                self.log.append(("launch", len(inputs)))
            return harness.time_graph(launch, 2, 1, 1)[1], weakref.ref(launch)
        measure, launch = capture()
        gc.collect()
        self.assertIsNotNone(launch(), "the launch function, and with it the graph's inputs, died with the capture")
        self.assertEqual(self.log[:2], [("launch", 1), ("launch", 1)])
        del measure
        gc.collect()
        self.assertIsNone(launch(), "measure should be what holds the launch function, and nothing else")


class Clocks(unittest.TestCase):
    def test_a_cpu_run_samples_nothing_and_says_why(self):
        clocks = nvml.Clocks(None)
        self.assertFalse(clocks.available)
        self.assertIn("no GPU", clocks.reason)
        clocks.mark()
        self.assertEqual(clocks.within([(0.0, 1e9)]), [])
        self.assertEqual(clocks.machine("13.0")["sm_clock_max_mhz"], 0)

    def test_a_missing_library_is_named(self):
        with self.assertRaises(nvml.NvmlError) as caught:
            nvml.Nvml("GPU-0", library="libnvidia-ml-absent.so.1")
        self.assertIn("libnvidia-ml-absent.so.1", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
