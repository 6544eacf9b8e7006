"""Peers in tilewise's receipts: torch.mm (cuBLAS's default route), F.linear, Triton (torch.compile max-autotune,
Triton GEMM backend only) and tilewise's own PyTorch op (tilewise.linear), measured under tilewise's protocol on the
GPU machine's own torch and triton.

    python3 bench/peers/run.py --suite suites/square.txt --dtypes bf16 --layouts TN,NN -o results/peers.json
    python3 bench/peers/run.py --suite suites/llm24-linear.txt --arms torch-linear,tilewise --baseline torch-linear \
        -o results/peers-linear.json     # tilewise.linear against F.linear in nn.Linear's orientation

Problems use column-major BLAS naming (DESIGN.md): C[MxN] column-major is, in torch's row-major terms, the
N x M matrix Ct = B_rows @ op(A), with B_rows the N x K view of B, op(A) the K x M view (NN) or the transpose of
the M x K view (TN). Every arm computes exactly that memory layout, as tilewise's arms do: in nn.Linear's terms
(TN), x = B_rows [N, K] (tokens), W = A's M x K view [F = M, K], y = x W^T = Ct.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

import receipt as rc
from harness import capture_stream, cores_note, device_uuid, finish, frame, heat, interleave, read_bandwidth, \
    time_graph, time_host_loop
from nvml import Clocks

import torch
import torch._dynamo
from unittest import mock


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", action="append", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--dtypes", default="bf16")
    ap.add_argument("--layouts", default="TN")
    ap.add_argument("--arms", default="torch,triton", help="of torch, torch-linear, tilewise, triton")
    ap.add_argument("--baseline", default="torch")
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--replays", type=int, default=3)
    ap.add_argument("--warmup-s", type=float, default=10.0)
    ap.add_argument("--rewarm-ms", type=float, default=100.0)
    ap.add_argument("--graph-ms", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--deadline-s", type=float, default=None,
                    help="start no case after this many seconds; the cases left are listed as skipped, with the reason")
    ap.add_argument("--tilewise", default="build/release/tilewise", help="binary whose checker judges the receipt")
    ap.add_argument("-o", "--output", required=True)
    return ap.parse_args()


def load_suite(path):
    out = []
    for number, line in enumerate(open(path), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 4:
            raise SystemExit(f"{path}:{number}: expected 'name M N K'")
        out.append((words[0], int(words[1]), int(words[2]), int(words[3])))
    return out


def rewarm(runs, first, seconds):
    """The per-problem re-warm: replays the baseline arm's timing graph (the first arm's that has one, if the
    baseline failed) back to back for about `seconds`, as tilewise's runner does."""
    graph = next((r["graph"] for r in [runs[first]] + runs if r and r.get("graph")), None)
    t0 = time.perf_counter()
    while graph is not None and time.perf_counter() - t0 < seconds:
        graph.replay()
        graph.replay()
        torch.cuda.synchronize()
    return time.perf_counter() - t0


class Problem:
    """One problem's operand sets as torch views, its fp32 reference and the fp64 check of that reference."""

    def __init__(self, p, sets, seed):
        self.p, self.sets, self.seed = p, sets, seed
        dtype = torch.bfloat16 if p["dtype"] == "bf16" else torch.float16
        m, n, k = p["M"], p["N"], p["K"]
        gen = torch.Generator(device="cuda").manual_seed(seed)
        self.b_rows, self.op_a, self.c = [], [], []
        for _ in range(sets):
            a = (torch.rand(m * k, device="cuda", generator=gen) * 2 - 1).to(dtype)
            b = (torch.rand(n * k, device="cuda", generator=gen) * 2 - 1).to(dtype)
            self.op_a.append(a.view(m, k).t() if p["layout"] == "TN" else a.view(k, m))
            self.b_rows.append(b.view(n, k))
            self.c.append(torch.full((n, m), float("nan"), device="cuda", dtype=dtype))
        torch.backends.cuda.matmul.allow_tf32 = False
        self.ref = self.b_rows[0].float() @ self.op_a[0].float()  # Ct, fp32 accumulate

    def check_reference(self, side=16):
        p = self.p
        rows = sorted({(p["M"] - 1) * r // max(side - 1, 1) for r in range(min(side, p["M"]))})
        cols = sorted({(p["N"] - 1) * c // max(side - 1, 1) for c in range(min(side, p["N"]))})
        a = self.op_a[0][:, rows].double().cpu()
        b = self.b_rows[0][cols, :].double().cpu()
        got = self.ref[cols][:, rows].double().cpu()
        exact = b @ a
        magnitude = b.abs() @ a.abs()
        err = ((got - exact).abs() / magnitude.clamp_min(1e-30)).max().item()
        return {"samples": len(rows) * len(cols), "max_err": err if math.isfinite(err) else 1e300,  # JSON has no inf
                "bound": rc.REFERENCE_BOUND, "ok": math.isfinite(err) and err <= rc.REFERENCE_BOUND}

    def judge(self, out):
        d = out.double() - self.ref.double()
        if not torch.isfinite(out).all():
            return None, None
        return (d.norm() / self.ref.double().norm()).item(), d.abs().max().item()


def _mm(b, a):
    return torch.mm(b, a)


def compile_checked(fn, *args):
    """The first call of a torch.compile'd function, which compiles it, with a look at the code Inductor generated:
    (output, seconds, kernel), kernel naming the Triton GEMM template kernels and their tile (rc.triton_kernel,
    which raises unless the GEMM runs in a Triton template and nowhere else)."""
    from torch._inductor.graph import GraphLowering
    codes = []
    t0 = time.perf_counter()
    with mock.patch.object(GraphLowering, "save_output_code", codes.append):  # called on fresh compiles and cache hits
        out = fn(*args)
        torch.cuda.synchronize()
    return out, time.perf_counter() - t0, rc.triton_kernel(codes)


def replay_per_set(launch, sets):
    """One CUDA graph of a single launch per rotation set, captured from `launch`: replay(set) replays set's graph."""
    for s in range(sets):  # every set called once outside a capture first
        launch(s)
    torch.cuda.synchronize()
    pool, graphs = torch.cuda.graph_pool_handle(), []
    for s in range(sets):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=pool):
            launch(s)
        graphs.append(graph)
    return lambda s: graphs[s].replay()


def triton_arm(prob):
    """The Triton arm: torch.compile max-autotune with the Triton GEMM backend only, compiled afresh for the problem.

    Graph path: compiled without Inductor's CUDA graphs, so time_graph captures the Triton kernel itself, as for
    every arm. Host path: tilewise's host loop times back-to-back launches through an arm's own entry point, one
    kernel a launch, what an application sees. Called in a plain Python loop, the compiled function costs tens of
    microseconds of Python and launcher work a call (the checker flagged the two paths apart on 50-150 us
    kernels), so a max-autotune user runs it under CUDA graphs: here one captured single-launch graph per rotation
    set, replayed a call. That is what Inductor's own CUDA graphs replay, without a second compile (8-50 s a shape)
    or Inductor's copies of inputs that are not static, which rotation sets would make device work in the timing."""
    import torch._inductor.config as inductor
    import triton
    inductor.max_autotune_gemm_backends = "TRITON"
    inductor.autotune_fallback_to_aten = False  # a Triton arm that cannot use Triton fails, never runs cuBLAS
    # Decompose-K (a choice for small M and N with a long K) runs its partial products through ATen's bmm, cuBLAS:
    # on llm24's sn_*_dec shapes autotuning chose it, and the arm was not Triton's GEMM.
    inductor.triton.num_decompose_k_splits = 0
    # Every problem compiles afresh: past dynamo's recompile limit a compiled function silently runs eager
    # (cuBLAS), which once made this arm report torch's times as Triton's.
    torch._dynamo.reset()
    compiled = torch.compile(_mm, mode="max-autotune-no-cudagraphs", dynamic=False)
    _, compile_s, kernel = compile_checked(compiled, prob.b_rows[0], prob.op_a[0])
    config = {"family": "triton", "mode": "max-autotune-no-cudagraphs", "backends": "TRITON", "decompose_k": False,
              "compile_s": compile_s,
              "kernel": kernel, "triton": triton.__version__,
              "host_path": "one single-launch CUDA graph per rotation set"}

    def launch(s):
        return compiled(prob.b_rows[s], prob.op_a[s])

    tile = " ".join(f"{k}={v}" for k, v in kernel.items() if k not in ("templates", "other_kernels"))
    return launch, replay_per_set(launch, prob.sets), config, \
        f"torch.compile max-autotune ({', '.join(kernel['templates'])} {tile}), compiled in {compile_s:.1f} s; " \
        f"host loop: one single-launch CUDA graph per rotation set ({prob.sets})"


def torch_kernels(problems):
    """The GPU kernels one torch.mm launches for each problem, named by torch's profiler in a child process: which
    cuBLAS kernel torch chose, so a gap between the torch and cublaslt-default arms can be told apart from a
    different choice. Not in this process, so no profiler is ever attached while the arms are timed."""
    script = ("import json, sys, torch\n"
              "from torch.profiler import ProfilerActivity, profile\n"
              "sys.path.insert(0, %r)\n"
              "import run\n"
              "out = []\n"
              "for p in json.loads(sys.stdin.read()):\n"
              "    prob = run.Problem(p, 1, 0)\n"
              "    torch.cuda.synchronize()\n"
              "    with profile(activities=[ProfilerActivity.CUDA]) as prof:\n"
              "        torch.mm(prob.b_rows[0], prob.op_a[0], out=prob.c[0])\n"
              "        torch.cuda.synchronize()\n"
              "    out.append(sorted({e.name for e in prof.events() if e.device_type.name == 'CUDA'}))\n"
              "print(json.dumps(out))\n") % os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(problems), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"naming torch's kernels failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def make_arm(name, prob):
    """(launch(set), host_launch(set), config, config_text) for an arm on a problem: launch is what the graph path
    captures, host_launch what the host loop calls (the same but for triton). Raises Declined where the arm's op does
    not take the problem."""
    if name == "torch":
        def launch(s):
            torch.mm(prob.b_rows[s], prob.op_a[s], out=prob.c[s])
            return prob.c[s]
        return launch, launch, {"family": "torch", "op": "torch.mm(out=)", "torch": torch.__version__}, "torch.mm"
    if name == "torch-linear":
        def launch(s):
            return torch.nn.functional.linear(prob.b_rows[s], prob.op_a[s].t())
        return launch, launch, {"family": "torch", "op": "F.linear(x, w)", "torch": torch.__version__}, "F.linear"
    if name == "tilewise":
        if prob.p["layout"] != "TN":
            raise Declined("tilewise.linear takes nn.Linear's weight [F, K] with K contiguous: layout TN only")
        import tilewise

        def launch(s):
            return tilewise.linear(prob.b_rows[s], prob.op_a[s].t())
        return launch, launch, {"family": "tilewise", "op": "tilewise.linear(x, w)",
                                "tilewise": getattr(tilewise, "__version__", "unknown")}, "tilewise.linear"
    if name == "triton":
        return triton_arm(prob)
    raise SystemExit(f"unknown arm '{name}' (known: torch, torch-linear, tilewise, triton)")


class Declined(Exception):
    """An arm whose op does not take the problem (a layout outside it): recorded as declined, not as a fault."""


def prepare(name, prob, a):
    """One arm made, checked and given its timing graph: the record the repeats fill in. The first launch runs on
    the stream graphs are captured on (a library's per-stream setup happens there, outside any capture)."""
    arm = rc.arm_result(name, prob.p, {}, "")
    run = {"arm": arm, "timed": [], "measure": None, "graph": None}
    try:
        launch, host_launch, arm["config"], arm["config_text"] = make_arm(name, prob)
        with torch.cuda.stream(capture_stream()):
            out = launch(0)
        torch.cuda.synchronize()
        arm["rel_err"], arm["max_abs_err"] = prob.judge(out)
        arm["correct"] = rc.is_correct(arm["rel_err"], arm["bound"])
        if arm["correct"]:
            est = max(prob.sets, 16)
            est = -(-est // prob.sets) * prob.sets
            run["probe_graph"], probe = time_graph(launch, est, prob.sets, 1)  # kept: capture_stream() says why
            n = rc.launches_for(probe(1), a.graph_ms, prob.sets)
            arm["launches"] = arm["host_launches"] = n
            run["graph"], run["measure"] = time_graph(launch, n, prob.sets, a.replays)
            run["launch"] = host_launch
    except Declined as e:
        arm["declined"] = str(e)
    except Exception as e:  # an arm that cannot run is recorded, never hidden
        arm["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        arm["correct"] = False
    return run


def measure(prob, arms, a, clocks, during):
    """One problem: every arm checked, then timed on both paths with the arms interleaved."""
    result = {"problem": prob.p, "rotation_sets": prob.sets, "working_set_bytes": prob.sets * rc.rotation_set_bytes(prob.p),
              "seed": prob.seed, "reference": prob.check_reference(), "arms": [], "comparisons": []}
    # The re-warm is the problem's own work, as in tilewise's runner: the baseline arm (torch.mm, nothing to
    # compile) is prepared first and its graph replayed before the other arms are prepared (Inductor times its
    # candidates while compiling) and again right before the timed repeats, after any compile.
    first = arms.index(a.baseline)
    runs = [None] * len(arms)
    runs[first] = prepare(arms[first], prob, a)
    rewarm(runs, first, a.rewarm_ms / 1000.0)
    for k, name in enumerate(arms):
        if k != first:
            runs[k] = prepare(name, prob, a)
    rewarm(runs, first, a.rewarm_ms / 1000.0)
    def time_one(run):  # the host loop first, as in tilewise's runner (docs/notes/2026-12-05-timing-carryover.md)
        run["arm"]["host_us"].append(time_host_loop(run["launch"], run["arm"]["host_launches"], prob.sets))
        run["arm"]["us"].append(run["measure"](a.replays))
    during.extend(interleave(runs, a.repeats, clocks, lambda run: run["measure"], time_one))
    result["arms"] = [run["arm"] for run in runs]
    return rc.finish_result(result, a.baseline)


def main():
    a = parse_args()
    arms = a.arms.split(",")
    only = set(filter(None, a.only.split(",")))
    if a.baseline not in arms:
        raise SystemExit(f"baseline '{a.baseline}' is not among the arms")
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA GPU is usable here; the peer runner measures on the GPU machine")
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 62)
    props = torch.cuda.get_device_properties(0)
    clocks = Clocks(device_uuid("cuda"))
    versions = [f"torch {torch.__version__}"]
    if "triton" in arms:
        import triton
        versions.append(f"triton {triton.__version__}")
    if "tilewise" in arms:
        import tilewise
        versions.append(f"tilewise {getattr(tilewise, '__version__', 'unknown')}")
    protocol = {"warmup_s": 0.0, "repeats": a.repeats, "cold": a.cold, "rotation_sets": 0,
                "working_set_bytes": rc.COLD_L2_MULTIPLE * props.L2_cache_size if a.cold else 0,
                "timing": rc.timing(arms), "arms": arms, "baseline": a.baseline, "seed": seed,
                "graph_target_ms": a.graph_ms, "replays": a.replays, "selection_rounds": 1, "rewarm_ms": a.rewarm_ms}
    r = frame("tilewise-peers", ", ".join(versions),
              [f"peer runner: {', '.join(arms)} under tilewise's protocol", rc.rewarm_note(a.baseline, a.rewarm_ms),
               rc.ORDER_NOTE, cores_note()], "cuda", clocks, protocol)
    r["protocol"]["warmup_s"] = heat(a.warmup_s)
    r["machine"]["read_bw"] = read_bandwidth()
    r["machine"]["read_bw_gbps"] = rc.read_bw_gbps(r["machine"]["read_bw"])
    cases = [(e, d, l) for s in a.suite for e in load_suite(s) if not only or e[0] in only
             for d in a.dtypes.split(",") for l in a.layouts.split(",")]
    during, failures, started = [], [], time.perf_counter()
    for i, ((name, m, n, k), dtype, layout) in enumerate(cases):
        p = rc.problem(name, m, n, k, dtype, layout)
        t0 = time.perf_counter()
        if a.deadline_s is not None and t0 - started > a.deadline_s:
            r["skipped"].append({"problem": f"{name} {dtype} {layout}",
                                 "reason": f"not started: the run's deadline (--deadline-s {a.deadline_s:g}) had passed"})
            print(f"[{i + 1:>4}/{len(cases)}] skipped past the deadline: {name} {dtype} {layout}", file=sys.stderr)
            continue
        prob = None
        try:
            sets = rc.rotation_sets(p, a.cold, props.L2_cache_size)
            prob = Problem(p, sets, seed + i)
            r["results"].append(measure(prob, arms, a, clocks, during))
            r["protocol"]["rotation_sets"] = max(r["protocol"]["rotation_sets"], sets)
            line = "  ".join(f"{x['arm']} {x['us_median']:.2f} us" if x["us_median"] else f"{x['arm']} FAILED"
                             for x in r["results"][-1]["arms"])
        except torch.cuda.OutOfMemoryError as e:
            r["skipped"].append({"problem": f"{name} {dtype} {layout}", "reason": str(e).splitlines()[0]})
            failures.append(f"{name} {dtype} {layout}: not measured: out of memory")
            line = "skipped: out of memory"
        del prob
        torch._dynamo.reset()  # drops the compiled functions, and the operands marked static that they kept alive
        torch.cuda.empty_cache()
        r["clocks"]["during"] = rc.summarize(during)
        r["problems"] = failures + ([f"incomplete: {i + 1} of {len(cases)} cases done"] if i + 1 < len(cases) else [])
        rc.write(r, a.output)
        print(f"[{i + 1:>4}/{len(cases)}] {time.perf_counter() - t0:6.1f} s  {name} {dtype} {layout}  {line}",
              file=sys.stderr, flush=True)
    r["problems"] = failures  # every case was measured or is listed as skipped with its reason
    named = [(arm, x["problem"]) for x in r["results"] for arm in x["arms"] if arm["arm"] == "torch" and arm["us"]]
    if named:
        try:
            for (arm, _), kernels in zip(named, torch_kernels([p for _, p in named])):
                arm["config"]["kernels"] = kernels
                arm["config_text"] = f"torch.mm ({', '.join(kernels)})"
        except (RuntimeError, ValueError) as e:  # the figures stand without the names; the note says why
            r["notes"].append(f"torch's kernels are not named: {e}")
    return finish(r, clocks, a.output, a.tilewise)


if __name__ == "__main__":
    sys.exit(main())
