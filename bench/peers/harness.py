"""The protocol's device side for the peer runners, in torch: the warm-up heater, the read bandwidth, the two timing
paths and the receipt's frame (tool, machine, protocol, clocks). run.py (GEMMs) and decode_step.py (a decoder step)
both measure through it, so the two receipts time the same way tilewise's C++ runner does (device/timing.hpp).
"""
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

import torch

import receipt as rc


_capture = None


def capture_stream():
    """The one side stream every graph is captured on. A library that sets up per-stream state on its first call
    (tilewise's per-stream workspace) must have made that call on this stream before a capture: run each arm's
    first launch under `with torch.cuda.stream(capture_stream())`. Keep every graph captured here until the graphs
    captured with it are done: destroying one clears torch's cuBLAS workspace for this stream, which the others
    still replay into (pytorch/pytorch#193402)."""
    global _capture
    if _capture is None:
        _capture = torch.cuda.Stream()
    return _capture


def time_graph(fn, launches, sets, replays):
    """The graph path: one CUDA graph of `launches` launches (launch i on set i % sets), and measure(count), the
    median microseconds per launch over `count` timed replays (after one untimed replay at capture)."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture_stream()):
        for i in range(launches):
            fn(i % sets)
    graph.replay()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def measure(count):
        us = []
        for _ in range(count):
            start.record()
            graph.replay()
            stop.record()
            stop.synchronize()
            us.append(start.elapsed_time(stop) * 1000.0 / launches)
        return statistics.median(us)
    # The graph reads the tensors fn's closure holds, and a graph does not keep them alive: without this a caller
    # that kept only `measure` replayed into freed memory (the 70B decode step's illegal address, 2026-12-03).
    measure.graph_inputs = fn
    return graph, measure


def time_host_loop(fn, launches, sets):
    """The host path: microseconds per launch of `launches` back-to-back launches issued from the host, timed by
    events on the stream, as device/timing.cpp times tilewise's own. One launch of the last set runs first, so the
    timed launches queue behind work already on the GPU: the time is what the stream of launches takes, gaps left
    where the host cannot keep ahead included, not the host's latency to its first launch or back from its last
    (a host clock around the loop counted both once a loop: the peers' receipts show torch.mm loops 140-220 us
    over their graph replays whatever their launch count, docs/notes/2026-12-03-host-path.md)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn(sets - 1)
    start.record()
    for i in range(launches):
        fn(i % sets)
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1000.0 / launches


def interleave(runs, repeats, clocks, timed, time_one):
    """The timed repeats: in each, every run with timed(run) is timed once by time_one(run), the order rotated one
    run later each repeat so drift hits them all alike, each between two clock marks (run["timed"]). Then every
    run's arm gets the summary of the clock samples inside its own timed regions; returns all those samples."""
    for rep in range(repeats):
        for k in range(len(runs)):
            run = runs[(k + rep) % len(runs)]
            if timed(run):
                t0 = clocks.mark()
                time_one(run)
                run["timed"].append((t0, clocks.mark()))
    during = []
    for run in runs:
        samples = clocks.within(run["timed"])
        run["arm"]["clock"] = rc.summarize(samples)
        during.extend(samples)
    return during


def heat(seconds, device="cuda"):
    """A sustained bf16 GEMM, as tilewise's heater, for the initial warm-up only: each problem re-warms on its own
    work, because this, the most power-hungry load there is, run right before timing left the power-capped clock
    under what the problem itself sustains (src/bench/heater.hpp). Returns the seconds it ran."""
    side = 8192 if device == "cuda" else 512
    a = torch.rand(side, side, device=device, dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(4):
            torch.mm(a, a)
        if device == "cuda":
            torch.cuda.synchronize()
    return time.perf_counter() - t0


def read_bandwidth(device="cuda", nbytes=4 << 30):
    """Ten timed sums over a buffer of `nbytes` (after one untimed): the receipt's machine.read_bw."""
    data = torch.empty(nbytes, dtype=torch.uint8, device=device).fill_(0x5A).view(torch.int64)
    us = []
    for i in range(11):
        if device == "cuda":
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            data.sum()
            stop.record()
            stop.synchronize()
            elapsed = start.elapsed_time(stop) * 1000.0
        else:
            t0 = time.perf_counter()
            data.sum()
            elapsed = (time.perf_counter() - t0) * 1e6
        if i:
            us.append(elapsed)
    return {"bytes": nbytes, "us": us}


def git_state():
    """(commit, dirty) of the checkout the runner runs from; "unknown" counts as dirty."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                text=True).stdout.strip()) or commit == "unknown"
    return commit, dirty


def machine(device, clocks):
    """The receipt's machine block for the GPU in use, or for the CPU of a dry run (no GPU figures, said so)."""
    if device == "cuda":
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        gpu = {"gpu": props.name, "sm_count": props.multi_processor_count, "cc": f"{props.major}.{props.minor}",
               "l2_bytes": props.L2_cache_size, "smem_per_block_optin": props.shared_memory_per_block_optin,
               "memory_bytes": props.total_memory}
    else:
        gpu = {"gpu": "none (CPU dry run)", "sm_count": 0, "cc": "n/a", "l2_bytes": 0, "smem_per_block_optin": 0,
               "memory_bytes": 0}
    return {**gpu, "cuda_runtime": torch.version.cuda or "none", "cublaslt": "torch's bundled cuBLAS", "nvrtc": "n/a",
            **clocks.machine(torch.version.cuda)}


def device_uuid(device):
    """The GPU's UUID for NVML, or None on the CPU."""
    if device != "cuda":
        return None
    return str(torch.cuda.get_device_properties(torch.cuda.current_device()).uuid)


def frame(tool_name, version, notes, device, clocks, protocol):
    """A receipt with everything but its results: the caller fills protocol's figures, results and problems."""
    commit, dirty = git_state()
    return {"schema": rc.SCHEMA, "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join(sys.argv), "notes": notes,
            "tool": {"name": tool_name, "version": version, "commit": commit, "dirty": dirty},
            "machine": machine(device, clocks), "protocol": protocol,
            "clocks": {"available": clocks.available, "unavailable_reason": clocks.reason, "before": clocks.sample(),
                       "during": rc.summarize([]), "after": clocks.sample()},
            "results": [], "skipped": [], "preregistration": None, "problems": [], "valid": False}


def cores_note():
    return (f"CPU: this process and its compile workers ran on {len(os.sched_getaffinity(0))} of the machine's "
            f"{os.cpu_count()} cores (where other runners ran, on the rest: their compiles on the same cores "
            "delayed torch.mm's eager launches until the checker refused the host loop)")


def finish(r, clocks, output, tilewise_bin):
    """Closes a run: the last clock sample, the receipt written and judged by `tilewise check` (what it finds joins
    the receipt's problems), one line said. Returns the exit status: 0 for a valid receipt."""
    r["clocks"]["after"] = clocks.sample()
    clocks.stop = True
    rc.write(r, output)
    found = rc.check_with_tilewise(output, tilewise_bin)
    if found:
        r["problems"] = sorted(set(r["problems"]) | set(found))
        rc.write(r, output)
    print(f"receipt {output}: {'valid' if not r['problems'] else 'INVALID: ' + '; '.join(r['problems'][:5])}")
    return 0 if not r["problems"] else 1
