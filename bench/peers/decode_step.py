"""The decode step: a Llama-3-shaped decoder-layer stack (decoder.py) run as one serving step, with each arm's linears
(linears.py) inside the same step, timed under tilewise's protocol in one process, into a receipt `tilewise check`
validates.

    python3 bench/peers/decode_step.py -o results/decode-step.json
    python3 bench/peers/decode_step.py --device cpu --dry-run -o dry.json    # the plumbing on tiny shapes (CI)

Steps: per model (--models NAME:LAYERS: the Llama-3-8B shape at 8 layers, all alike, and one 70B-class layer) and per
T in --tokens (T sequences decoding one token each, --context tokens cached) and --prefill (one chunk of that many
tokens after --context cached). Each arm's step is checked, then timed with the arms rotated in each of --repeats:
  graph path   the whole step captured in a CUDA graph, enough steps to span --graph-ms, replayed, timed by events;
  host path    a graph of one step, replayed once a step back to back from the host and timed by events on the stream
               (harness.time_host_loop): what a serving loop's stream of steps takes;
  linears      the step's linears alone in a graph (on inputs of their shapes), timed right after the arm.
The receipt's problem for a step is its linears as one TN GEMM holding the same weights (receipt.step_problem); each
arm's `step` block carries tokens/s, the linears' share of the step (timed alone, and by removal against the
no-linears arm) and its error per layer against its own reference and against the bf16 weights (receipt.check_steps).
"""
import argparse
import math
import os
import random
import sys
import time

import torch

import decoder
import harness
import linears
import receipt as rc
from nvml import Clocks

FULL = {"models": "llama3-8b:8,llama3-70b:1", "tokens": "1,2,4,8,16", "prefill": 512, "context": 1024,
        "warmup_s": 10.0, "repeats": 10, "replays": 3}
# The dry run checks the plumbing, not the machine: tiny shapes, a short warm-up (the receipt says it is under the
# protocol's floor), a few repeats.
DRY_RUN = {"models": "tiny:2", "tokens": "1,2", "prefill": 16, "context": 32, "warmup_s": 0.5, "repeats": 3,
           "replays": 1}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help=f"NAME:LAYERS,... (names: {', '.join(decoder.SHAPES)}; default {FULL['models']})")
    ap.add_argument("--tokens", help=f"decode steps' T (default {FULL['tokens']})")
    ap.add_argument("--prefill", type=int, help=f"the prefill chunk's tokens, 0 for none (default {FULL['prefill']})")
    ap.add_argument("--context", type=int, help=f"tokens cached before the step (default {FULL['context']})")
    ap.add_argument("--arms", help=f"of {', '.join(linears.ARMS)}; default all but tilewise-int4-g32 (a dry run "
                                   "leaves out tilewise's where the package is not installed)")
    ap.add_argument("--baseline", default="torch-bf16")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--replays", type=int)
    ap.add_argument("--warmup-s", type=float)
    ap.add_argument("--rewarm-ms", type=float, default=100.0)
    ap.add_argument("--graph-ms", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--deadline-s", type=float, default=None,
                    help="start no step after this many seconds; the steps left are listed as skipped, with the reason")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--dry-run", action="store_true", help=f"tiny shapes, no graphs on the CPU ({DRY_RUN})")
    ap.add_argument("--tilewise", default="build/release/tilewise", help="binary whose checker judges the receipt")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--overwrite", action="store_true")
    a = ap.parse_args(argv)
    for key, value in (DRY_RUN if a.dry_run else FULL).items():
        if getattr(a, key) is None:
            setattr(a, key, value)
    problems = []
    if a.device == "cpu" and not a.dry_run:
        problems.append("--device cpu runs only the dry run's shapes: add --dry-run")
    try:
        a.models = [(name, int(layers)) for name, layers in (m.split(":") for m in a.models.split(","))]
        a.tokens = [int(t) for t in a.tokens.split(",")]
    except ValueError:
        ap.error("--models takes NAME:LAYERS,... and --tokens a list of integers")
    problems += [f"unknown model '{n}' (known: {', '.join(decoder.SHAPES)})" for n, _ in a.models
                 if n not in decoder.SHAPES]
    problems += [f"{n}: layers must be at least 1, not {layers}" for n, layers in a.models if layers < 1]
    problems += [f"--tokens: {t} is not a positive count" for t in a.tokens if t < 1]
    for name, value, least in (("--prefill", a.prefill, 0), ("--context", a.context, 0), ("--repeats", a.repeats, 1),
                               ("--replays", a.replays, 1)):
        if value < least:
            problems.append(f"{name} must be at least {least}, not {value}")
    for name, value in (("--warmup-s", a.warmup_s), ("--rewarm-ms", a.rewarm_ms), ("--graph-ms", a.graph_ms)):
        if not math.isfinite(value) or value < 0 or (name == "--graph-ms" and value == 0):
            problems.append(f"{name} must be a finite {'positive' if name == '--graph-ms' else 'non-negative'} "
                            f"number, not {value}")
    if os.path.exists(a.output) and not a.overwrite:
        problems.append(f"{a.output} exists: pass --overwrite to replace it")
    if not os.path.isdir(os.path.dirname(os.path.abspath(a.output))):
        problems.append(f"{a.output}: its folder does not exist")
    if problems:
        ap.error("; ".join(problems))
    return a


def choose_arms(a):
    """The arms by name, made, and a note of those the defaults left out: on the CPU tilewise's (tilewise.linear
    runs on CUDA tensors), on a GPU dry run tilewise's where the package is not installed."""
    names = a.arms.split(",") if a.arms else list(linears.DEFAULT_ARMS)
    if a.baseline not in names:
        raise SystemExit(f"baseline '{a.baseline}' is not among the arms")
    arms, left_out = {}, []
    for name in names:
        if a.arms is None and a.device == "cpu" and name.startswith("tilewise-"):
            left_out.append(name)
            continue
        try:
            arms[name] = linears.make(name)
        except ValueError as e:
            raise SystemExit(str(e))
        except ImportError as e:
            if not (a.dry_run and a.arms is None):
                raise SystemExit(f"arm {name}: the tilewise package is not importable ({e})")
            left_out.append(name)
    why = "tilewise.linear runs on CUDA tensors" if a.device == "cpu" else "the tilewise package is not installed"
    return arms, [f"left out ({why}): {', '.join(left_out)}"] if left_out else []


class GraphTimers:
    """An arm's three timings on one step, captured once on the capture stream: the step `launches` times in one
    graph (graph path), the step once in a graph replayed once a step (host path), the linears alone in a graph."""

    def __init__(self, step_fn, linears_fn, a):
        self.single = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.single, stream=harness.capture_stream()):
            self.outputs = step_fn(0)
        estimate = harness.time_host_loop(lambda s: self.single.replay(), 1, 1)
        self.launches = rc.launches_for(estimate, a.graph_ms, 1)
        self.graph, self.measure = harness.time_graph(step_fn, self.launches, 1, a.replays)
        self.linears = None
        if linears_fn:
            self.probe_graph, probe = harness.time_graph(linears_fn, 1, 1, 1)  # kept: harness.capture_stream() says why
            _, self.linears = harness.time_graph(linears_fn, rc.launches_for(probe(1), a.graph_ms, 1), 1, a.replays)
        self.replays = a.replays

    def graph_us(self):
        return self.measure(self.replays)

    def host_us(self, graph_us):
        return harness.time_host_loop(lambda s: self.single.replay(), self.launches, 1)

    def linears_us(self):
        return self.linears(self.replays) if self.linears else None

    def rewarm(self, seconds):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            self.graph.replay()
            torch.cuda.synchronize()


class EagerTimers:
    """The CPU dry run's stand-in for GraphTimers: no graphs, the step called eagerly `launches` times on the host
    clock. The host path is that same loop (its sample is recorded on both paths: the CPU has no second path)."""

    def __init__(self, step_fn, linears_fn, a):
        self.step_fn, self.linears_fn, self.replays = step_fn, linears_fn, a.replays
        self.outputs = step_fn(0)
        self.launches = rc.launches_for(self._loop(step_fn, 1), a.graph_ms, 1)

    @staticmethod
    def _loop(fn, launches):
        t0 = time.perf_counter()
        for _ in range(launches):
            fn(0)
        return (time.perf_counter() - t0) * 1e6 / launches

    def graph_us(self):
        return sorted(self._loop(self.step_fn, self.launches) for _ in range(self.replays))[self.replays // 2]

    def host_us(self, graph_us):
        return graph_us

    def linears_us(self):
        return self._loop(self.linears_fn, self.launches) if self.linears_fn else None

    def rewarm(self, seconds):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            self.step_fn(0)


def reference(batch, weights, arm, kept, dtype):
    """The step in `dtype` with the weights the arm computes with: the hidden state after each layer."""
    def linear(layer, name, x):
        return x @ arm.seen(kept[layer][name]).to(x.device, dtype).t()
    return decoder.step(batch, weights, linear, dtype)


def checked_reference(batch, weights, arm, kept):
    """The fp32 reference of an arm's weights (per layer) and its check against fp64 on the final hidden state."""
    ref = reference(batch, weights, arm, kept, torch.float32)
    exact = reference(batch, weights, arm, kept, torch.float64)[-1]
    err = decoder.relative_error(ref[-1], exact)
    ok = err is not None and err <= rc.REFERENCE_BOUND
    return ref, {"samples": ref[-1].numel(), "max_err": err if err is not None else 1e300,
                 "bound": rc.REFERENCE_BOUND, "ok": ok}


def prepare(arm, kept, batch, weights, model_ref, p, a):
    """One arm on one step: built, checked against its own reference and the bf16 weights', and given its timers.
    Each layer is judged alone (teacher-forced on the reference's input to it, eagerly), the final hidden state as
    the step's graph computes it."""
    entry = rc.arm_result(arm.name, p, {"family": arm.family, "weights": arm.weight_format, "op": arm.text,
                                        "torch": torch.__version__}, arm.text)
    no_weights = arm.name == "no-linears"
    entry["step"] = {"model": batch.shape.name, "layers": weights.layers, "tokens": batch.tokens,
                     "context": batch.context, "kind": "prefill" if batch.prefill else "decode",
                     "attention": batch.attention, "weight_format": arm.weight_format, "linears_us": [],
                     "bounds": rc.step_bounds(None if no_weights else arm.weight_format, weights.layers),
                     "layer_rel_err": [], "final_rel_err": None, "model_layer_rel_err": [], "model_final_rel_err": None}
    run = {"arm": entry, "timers": None, "timed": []}
    try:
        if isinstance(kept, Exception):
            raise kept
        entry["weight_bytes"] = sum(arm.nbytes(k) for layer in kept for k in layer.values())

        def linear(layer, name, x):
            return arm.apply(x, kept[layer][name])

        def step_fn(_):
            return decoder.step(batch, weights, linear)
        inputs = {name: torch.randn(batch.tokens, k, device=batch.x.device).to(torch.bfloat16)
                  for name, _, k in batch.shape.linears()}

        def linears_fn(_):
            return [linear(layer, name, inputs[name]) for layer in range(weights.layers) for name in inputs]
        on_gpu = batch.x.is_cuda
        with torch.cuda.stream(harness.capture_stream()) if on_gpu else torch.no_grad():
            step_fn(0)  # every shape's first call, on the stream graphs are captured on
        if on_gpu:
            torch.cuda.synchronize()
        timers = (GraphTimers if on_gpu else EagerTimers)(step_fn, None if no_weights else linears_fn, a)
        if on_gpu:
            timers.single.replay()  # the graph's own output is what is judged
            torch.cuda.synchronize()
        final = timers.outputs[-1]

        def judged(ref):
            forced = decoder.step(batch, weights, linear, inputs=[batch.x] + ref[:-1])
            return [decoder.relative_error(o, r) for o, r in zip(forced, ref)], decoder.relative_error(final, ref[-1])
        if arm.weight_format == "bf16" and not no_weights:
            own = model_ref
        else:
            own, entry["reference_check"] = checked_reference(batch, weights, arm, kept)
            entry["reference"] = f"the step in fp32 with the weights {arm.name} computes with"
        s = entry["step"]
        s["layer_rel_err"], s["final_rel_err"] = judged(own)
        if not no_weights:
            s["model_layer_rel_err"], s["model_final_rel_err"] = (
                (s["layer_rel_err"], s["final_rel_err"]) if own is model_ref else judged(model_ref))
        errors = s["layer_rel_err"]
        entry["rel_err"] = None if None in errors else max(errors)
        entry["max_abs_err"] = (final.double() - own[-1].double()).abs().max().item()
        if s["final_rel_err"] is None or s["final_rel_err"] > s["bounds"]["final"]:  # the graph is what is timed
            entry["rel_err"] = None
            entry["error"] = (f"the step's graph errs {s['final_rel_err']} against its reference after "
                              f"{weights.layers} layers, over its bound {s['bounds']['final']:.4g}")
        entry["correct"] = rc.is_correct(entry["rel_err"], entry["bound"])
        if entry["correct"]:
            run["timers"] = timers
            entry["launches"] = entry["host_launches"] = timers.launches
    except Exception as e:  # an arm that cannot run is recorded, never hidden
        entry["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        entry["correct"] = False
    return run


def measure(model, batch, weights, arms, kept, a, clocks, during, read_bw):
    """One step: every arm checked, then timed on all three paths with the arms rotated in each repeat."""
    name = f"{model.name}-L{weights.layers}-" + (f"prefill{batch.tokens}" if batch.prefill
                                                   else f"T{batch.tokens}") + f"-ctx{batch.context}"
    p = rc.step_problem(name, weights.layers, model.layer_weights(), model.hidden, batch.tokens)
    bf16 = linears.TorchBf16()
    model_ref, check = checked_reference(batch, weights, bf16, weights.linear)
    result = {"problem": p, "rotation_sets": 1, "working_set_bytes": rc.rotation_set_bytes(p), "seed": a.seed,
              "reference": check, "arms": [], "comparisons": []}
    runs = [prepare(arm, kept[arm.name], batch, weights, model_ref, p, a) for arm in arms.values()]
    del model_ref
    base = next((r["timers"] for r in runs if r["arm"]["arm"] == a.baseline and r["timers"]), None) or \
        next((r["timers"] for r in runs if r["timers"]), None)
    if base:
        base.rewarm(a.rewarm_ms / 1000.0)
    def time_one(run):
        entry, timers = run["arm"], run["timers"]
        entry["us"].append(timers.graph_us())
        entry["host_us"].append(timers.host_us(entry["us"][-1]))
        linears_us = timers.linears_us()
        if linears_us is not None:
            entry["step"]["linears_us"].append(linears_us)
    during.extend(harness.interleave(runs, a.repeats, clocks, lambda run: run["timers"], time_one))
    result["arms"] = [run["arm"] for run in runs]
    rc.finish_result(result, a.baseline, read_bw)
    no_linears = next((x["us_median"] for x in result["arms"] if x["arm"] == "no-linears"), None)
    for entry in result["arms"]:
        rc.step_figures(entry, batch.tokens, no_linears)
    return result


def prepare_weights(arms, weights):
    """Each arm's kept weights per layer, or the exception that stopped the arm from making them."""
    kept = {}
    for name, arm in arms.items():
        try:
            kept[name] = [{n: arm.prepare(w) for n, w in layer.items()} for layer in weights.linear]
        except Exception as e:
            kept[name] = e
    return kept


def notes(a, left_out_note):
    timing = ("CPU dry run: no CUDA graphs; each repeat times the step called eagerly on the host clock and records "
              "that one figure on both timing paths" if a.device == "cpu" else
              "graph path: the whole step captured in one CUDA graph (steps enough to span graph_target_ms); host "
              "path: a graph of one step replayed once a step, back to back, timed by events on the stream")
    return [f"decode step: {timing}",
            "the decoder stack (bench/peers/decoder.py): RMSNorm, fused q/k/v and gate/up linears, RoPE, torch's "
            "SDPA over a bf16 KV cache (GQA), SiLU-gated MLP; random weights N(0, 1/fan_in) in bf16; decode steps "
            "run T sequences one token each after the cached context, prefill one chunk of T tokens causally; no "
            "embedding, final norm or LM head",
            "each result's problem is the step's linears as one TN GEMM with the same weights (M = layers x weights "
            "a layer / hidden, N = T, K = hidden): tflops is the linears' work over the step time, gbps about their "
            "bf16 weight bytes over it; us figures are per step; weight_bytes what the arm's linears stream a step",
            "step block: tokens_per_s = T / step time (graph path), host_tokens_per_s by the host path; linears_share "
            "= the linears alone (timed in a graph right after the arm) over the step; linears_share_removed = 1 - "
            "the no-linears arm's step over this arm's",
            "correctness: each arm against the step in fp32 with the weights it computes with (that reference checked "
            "against fp64 within 1e-4 by relative norm of the final state): each layer alone, run on the reference's "
            "input to it (step.layer_rel_err; rel_err is the worst, bound 1e-2), and the final hidden state of the "
            "step's graph (step.final_rel_err); the same against the bf16 weights (step.model_*); bounds in "
            "step.bounds (receipt.step_bounds: a layer's against the bf16 weights adds twice the format's rounding "
            "error on Gaussian weights; the final state's are a layer's times sqrt(layers))",
            rc.rewarm_note(a.baseline, a.rewarm_ms)] + left_out_note


def main(argv=None):
    a = parse_args(argv)
    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("no CUDA GPU is usable here: run on the GPU machine, or --device cpu --dry-run")
    arms, left_out_note = choose_arms(a)
    torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 reference is IEEE fp32
    torch.backends.cudnn.allow_tf32 = False
    torch.set_grad_enabled(False)
    a.seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 62)
    clocks = Clocks(harness.device_uuid(a.device))
    tilewise_version = getattr(sys.modules.get("tilewise"), "__version__", "not installed")
    protocol = {"warmup_s": 0.0, "repeats": a.repeats, "cold": False, "rotation_sets": 1, "working_set_bytes": 0,
                "timing": "graph-replay+host-loop (host-loop launch: one replay of a single-step CUDA graph)"
                if a.device == "cuda" else "cpu-dry-run (eager steps on the host clock)",
                "arms": list(arms), "baseline": a.baseline, "seed": a.seed, "graph_target_ms": a.graph_ms,
                "replays": a.replays, "selection_rounds": 1, "rewarm_ms": a.rewarm_ms}
    r = harness.frame("tilewise-decode-step", f"torch {torch.__version__}, tilewise {tilewise_version}",
                      notes(a, left_out_note), a.device, clocks, protocol)
    r["protocol"]["warmup_s"] = harness.heat(a.warmup_s, a.device)
    r["machine"]["read_bw"] = harness.read_bandwidth(a.device, (4 << 30) if a.device == "cuda" else (256 << 20))
    r["machine"]["read_bw_gbps"] = read_bw = rc.read_bw_gbps(r["machine"]["read_bw"])
    steps = [(t, False) for t in a.tokens] + ([(a.prefill, True)] if a.prefill else [])
    # Every model's decode steps before any prefill chunk: a round its deadline cuts short loses prefill chunks (the
    # slowest steps: torch-int8 ran 1.96 s a replay at 512 tokens) rather than a model's decode steps.
    phases = [[(i, s) for i, s in enumerate(steps) if s[1] == prefill] for prefill in (False, True)]
    total, done, during, failures, started = len(a.models) * len(steps), 0, [], [], time.perf_counter()
    for phase in filter(None, phases):
        for m, (model_name, layers) in enumerate(a.models):
            model = decoder.SHAPES[model_name]
            weights = kept = None  # made once the model's first step of the phase starts
            for i, (tokens, prefill) in phase:
                done += 1
                what = f"{model_name} x{layers} {'prefill' if prefill else 'T'}={tokens} context {a.context}"
                if a.deadline_s is not None and time.perf_counter() - started > a.deadline_s:
                    r["skipped"].append({"problem": what, "reason": f"not started: the run's deadline (--deadline-s "
                                                                    f"{a.deadline_s:g}) had passed"})
                    continue
                t0 = time.perf_counter()
                if weights is None:
                    weights = decoder.Weights(model, layers, a.device, a.seed + m)
                    kept = prepare_weights(arms, weights)
                try:
                    batch = decoder.Batch(model, layers, tokens, a.context, prefill, a.device, a.seed + 1000 * m + i)
                    r["results"].append(measure(model, batch, weights, arms, kept, a, clocks, during, read_bw))
                    line = "  ".join(f"{x['arm']} {x['us_median']:.1f} us" if x["us_median"] else
                                     f"{x['arm']} FAILED" for x in r["results"][-1]["arms"])
                except torch.cuda.OutOfMemoryError as e:
                    r["skipped"].append({"problem": what, "reason": str(e).splitlines()[0]})
                    failures.append(f"{what}: not measured: out of memory")
                    line = "skipped: out of memory"
                batch = None
                if a.device == "cuda":
                    torch.cuda.empty_cache()
                r["clocks"]["during"] = rc.summarize(during)
                r["problems"] = failures + ([f"incomplete: {done} of {total} steps done"] if done < total else [])
                rc.write(r, a.output)
                print(f"[{done:>3}/{total}] {time.perf_counter() - t0:6.1f} s  {what}  {line}", file=sys.stderr,
                      flush=True)
            weights = kept = None
    r["problems"] = failures + rc.check_steps(r)
    return harness.finish(r, clocks, a.output, a.tilewise)


if __name__ == "__main__":
    sys.exit(main())
