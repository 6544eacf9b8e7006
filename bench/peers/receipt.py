"""Receipts for the peer runner, in tilewise's schema (tilewise.receipt/1).

Every derived figure is computed exactly as src/receipt/derive.cpp computes it, so `tilewise check` -- the
authority on receipts -- accepts what this module writes. Pure standard library: CI tests it without a GPU.
"""
import gzip
import json
import math
import os
import re
import statistics
import subprocess
import zlib

SCHEMA = "tilewise.receipt/1"
REFERENCE_BOUND = 1e-4
COLD_L2_MULTIPLE = 4
ELEMENT_BYTES = {"bf16": 2, "fp16": 2}
NVML_REASONS = [(0x1, "gpu_idle"), (0x2, "applications_clocks"), (0x4, "sw_power_cap"), (0x8, "hw_slowdown"),
                (0x10, "sync_boost"), (0x20, "sw_thermal"), (0x40, "hw_thermal"), (0x80, "hw_power_brake"),
                (0x100, "display_clocks")]


def problem(name, m, n, k, dtype, layout):
    """A problem with the tightest leading dimensions (column-major BLAS naming, as in core/problem.hpp)."""
    if dtype not in ELEMENT_BYTES:
        raise ValueError(f"{name}: the peer runner measures bf16 and fp16, not {dtype}")
    if layout not in ("TN", "NN"):
        raise ValueError(f"{name}: unknown layout {layout}")
    return {"name": name, "M": m, "N": n, "K": k, "dtype": dtype, "layout": layout,
            "lda": k if layout == "TN" else m, "ldb": k, "ldc": m}


def rotation_set_bytes(p):
    es = ELEMENT_BYTES[p["dtype"]]
    a_columns = p["M"] if p["layout"] == "TN" else p["K"]
    return (p["lda"] * a_columns + p["ldb"] * p["N"] + p["ldc"] * p["N"]) * es


def min_traffic_bytes(p):
    es = ELEMENT_BYTES[p["dtype"]]
    return (p["M"] * p["K"] + p["K"] * p["N"] + p["M"] * p["N"]) * es


def flops(p):
    return 2.0 * p["M"] * p["N"] * p["K"]


def rotation_sets(p, cold, l2_bytes):
    if not cold:
        return 1
    need = COLD_L2_MULTIPLE * l2_bytes
    return max(1, -(-need // rotation_set_bytes(p)))


def launches_for(estimate_us, target_ms, sets):
    """Launches per measurement, as device/timing.cpp chooses them."""
    n = int(min(max(math.ceil(target_ms * 1000.0 / max(estimate_us, 0.5)), 1), 20000))
    n = max(n, sets)
    return -(-n // sets) * sets


# What one launch of the host loop is, per arm. tilewise's own host loop calls the library directly, one kernel a
# launch (device/timing.hpp); the peers call their own entry points.
HOST_LOOP = {
    "torch": "torch.mm(out=) called",
    "torch-linear": "F.linear(x, w) called (its output from torch's caching allocator)",
    "tilewise": "tilewise.linear(x, w) called (its output from torch's caching allocator)",
    "triton": "one replay of a captured CUDA graph of a single launch of the torch.compile max-autotune function "
              "(one graph per rotation set)",
}


def timing(arms):
    """protocol.timing: the two timing paths, and what a host-loop launch is for each peer arm."""
    launches = "; ".join(f"{a}: {HOST_LOOP[a]}" for a in arms if a in HOST_LOOP)
    return "graph-replay+host-loop" + (f" (host-loop launch: {launches})" if launches else "")


# The order within an arm's turn, worded as tilewise's runner words it (docs/notes/2026-12-05-timing-carryover.md).
ORDER_NOTE = "order: in each arm's turn its host loop is timed first, then its graph replays"


def rewarm_note(baseline, rewarm_ms):
    """The receipt note that says what the per-problem re-warm is, worded as tilewise's runner words it."""
    return (f"re-warm: the baseline arm's own graph ({baseline}), replayed for {rewarm_ms:g} ms before each problem's "
            "other arms are prepared and again before its timed repeats; the 8192^3 bf16 heater runs only for the "
            "initial warm-up")


# Inductor names a Triton template kernel triton_tem_<fused name>_<n> (other kernels triton_poi_, triton_red_,
# triton_per_), writes its tile as `BLOCK_M : tl.constexpr = 128` lines and its launch shape as num_stages= and
# num_warps= in the template decorator, and calls ATen (cuBLAS for mm) as extern_kernels.<op>.
TRITON_TEMPLATE = re.compile(r"\btriton_tem_\w+")
TRITON_OTHER = re.compile(r"\btriton_(?:poi|red|per)_\w+")
ATEN_CALL = re.compile(r"\bextern_kernels\.(\w+)")
TEMPLATE_PARAM = re.compile(r"\b(BLOCK_[MNK]|GROUP_M|num_stages|num_warps)\s*(?::\s*tl\.constexpr\s*)?=\s*(\d+)")


def triton_kernel(codes):
    """What the code Inductor generated for one compile (a string per compiled graph) runs the GEMM in:
    {"templates": [kernel names], tile parameter: value, ..., "other_kernels": [...] where there are any (a layout
    copy, say)}. Raises ValueError unless the GEMM is a Triton template and nothing else: no generated code, no
    template kernel, or any ATen call (which for mm is cuBLAS)."""
    code = "\n".join(codes)
    templates, aten = sorted(set(TRITON_TEMPLATE.findall(code))), sorted(set(ATEN_CALL.findall(code)))
    if not templates or aten:
        raise ValueError(f"the compile did not run the GEMM in a Triton template: {len(codes)} generated modules, "
                         f"templates {templates}, ATen calls {aten}")
    other = sorted(set(TRITON_OTHER.findall(code)))
    return {"templates": templates, **{k: int(v) for k, v in TEMPLATE_PARAM.findall(code)},
            **({"other_kernels": other} if other else {})}


def correctness_bound(dtype):
    return 5e-3 if dtype == "fp16" else 1e-2


def is_correct(rel_err, bound):
    return rel_err is not None and math.isfinite(rel_err) and 0 <= rel_err <= bound


def derive(arm, p, read_bw=0.0):
    """An arm's summary from its samples, as receipt::derive: an arm that reports the weight bytes it streams
    (`weight_bytes`) also gets their rate and that rate over `read_bw` (the run's read bandwidth, GB/s)."""
    for key in ("us_median", "us_min", "us_max", "host_us_median", "tflops", "gbps"):
        arm[key] = None
    if arm.get("weight_bytes"):
        arm["weight_gbps"] = arm["weight_bw_fraction"] = None
    if not arm["correct"] or not arm["us"]:
        return arm
    med = statistics.median(arm["us"])
    arm.update(us_median=med, us_min=min(arm["us"]), us_max=max(arm["us"]),
               host_us_median=statistics.median(arm["host_us"]) if arm["host_us"] else None,
               tflops=flops(p) / med / 1e6, gbps=min_traffic_bytes(p) / med / 1e3)
    if arm.get("weight_bytes"):
        arm["weight_gbps"] = arm["weight_bytes"] / med / 1e3
        if read_bw > 0:
            arm["weight_bw_fraction"] = arm["weight_gbps"] / read_bw
    return arm


def compare(arm, base):
    c = {"arm": arm["arm"], "baseline": base["arm"], "speedup": 0.0, "overlap": True, "claim": "none"}
    if None in (arm["us_median"], base["us_median"]):
        return c
    c["speedup"] = base["us_median"] / arm["us_median"]
    if arm["us_max"] < base["us_min"]:
        c["claim"] = "faster"
    elif arm["us_min"] > base["us_max"]:
        c["claim"] = "slower"
    c["overlap"] = c["claim"] == "none"
    return c


def read_bw_gbps(read_bw):
    return read_bw["bytes"] / statistics.median(read_bw["us"]) / 1e3 if read_bw["us"] else 0.0


def reason_names(bits):
    names = [name for bit, name in NVML_REASONS if bits & bit]
    unknown = bits & ~sum(bit for bit, _ in NVML_REASONS)
    return names + ([f"other(0x{unknown:x})"] if unknown else [])


def summarize(samples):
    s = {"samples": len(samples), "sm_mhz_min": 0, "sm_mhz_median": 0, "sm_mhz_max": 0, "power_w_median": 0.0,
         "power_w_max": 0.0, "temp_c_max": 0, "reasons": []}
    if not samples:
        return s
    sm = [x["sm_mhz"] for x in samples]
    power = [x["power_w"] for x in samples]
    bits = 0
    for x in samples:
        bits |= x["reasons"]
    s.update(sm_mhz_min=min(sm), sm_mhz_max=max(sm), sm_mhz_median=int(math.floor(statistics.median(sm) + 0.5)),
             power_w_median=statistics.median(power), power_w_max=max(power),
             temp_c_max=max(x["temp_c"] for x in samples), reasons=reason_names(bits))
    return s


def arm_result(name, p, config, config_text):
    return {"arm": name, "config": config, "config_text": config_text, "error": "", "correct": False,
            "rel_err": None, "max_abs_err": None, "bound": correctness_bound(p["dtype"]), "launches": 0,
            "host_launches": 0, "us": [], "host_us": [], "us_median": None, "us_min": None, "us_max": None,
            "host_us_median": None, "tflops": None, "gbps": None, "clock": summarize([]), "candidates": []}


def finish_result(result, baseline, read_bw=0.0):
    """Derives every arm's summary and the comparisons against the baseline arm."""
    for arm in result["arms"]:
        derive(arm, result["problem"], read_bw)
    base = next((a for a in result["arms"] if a["arm"] == baseline), None)
    result["comparisons"] = [compare(a, base) for a in result["arms"]
                             if base and base["us_median"] is not None and a is not base
                             and a["us_median"] is not None]
    return result


def write(receipt, path):
    """Atomic write, as receipt::write_file does: gzip-compressed where the name ends in .json.gz."""
    receipt["valid"] = not receipt["problems"]
    text = json.dumps(receipt, indent=1) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(gzip.compress(text.encode(), mtime=0) if path.endswith(".json.gz") else text.encode())
    os.replace(tmp, path)


def load(path):
    """A receipt file as tilewise reads one: JSON, gzip-compressed where the name ends in .gz (results/*.json.gz).
    A stream that is not gzip, is cut short or is corrupt is a ValueError naming the file. (Python's gzip skips zero
    bytes after the last member, which tilewise refuses.)"""
    try:
        with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
            return json.load(f)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:  # not gzip, a stream cut short, a corrupt block
        raise ValueError(f"{path}: not valid gzip ({e})") from e


def step_problem(name, layers, layer_weights, hidden, tokens):
    """A decode step's problem (decode_step.py): the step's linears as one TN GEMM holding the same weights, M =
    layers x weights per layer / hidden, N = tokens, K = hidden. Its flops are the linears' work and its least
    traffic about their bf16 weight bytes, so tflops and gbps read as the step's rates over the linears."""
    if layer_weights % hidden:
        raise ValueError(f"{name}: {layer_weights} weights a layer are not a whole number of rows of {hidden}")
    return problem(name, layers * layer_weights // hidden, tokens, hidden, "bf16", "TN")


# The relative RMS error each weight format's rounding puts on Gaussian weights (N(0, 1) rows of K = 4096, 14336 and
# 28672 rounded to bf16, then to the format; the most, rounded up): one linear's output on a random input errs by
# about as much (docs/notes/2026-12-03-decode-step.md). "int8-channel" and "int4-g128-asym" are torch's weight-only
# formats (bench/peers/linears.py).
WEIGHT_ERROR = {"bf16": 0.0, "q8_0": 0.0054, "int4-g32": 0.098, "int4-g128": 0.118, "fp8": 0.027,
                "int8-channel": 0.0098, "int4-g128-asym": 0.101}


def step_bounds(weight_format, layers):
    """A decode-step arm's error bounds: {"layer", "final"} against its own reference (each layer alone: bf16's
    bound; the final hidden state: that times sqrt(layers), as independent layers' errors add) and {"model_layer",
    "model_final"} against the bf16 weights (one layer: bf16's bound plus twice its format's rounding error; the
    final state: times sqrt(layers)). No model bounds for a format without weights (None: the no-linears arm)."""
    depth = math.sqrt(layers)
    layer = correctness_bound("bf16")
    bounds = {"layer": layer, "final": layer * depth, "model_layer": None, "model_final": None}
    if weight_format is not None:
        bounds["model_layer"] = layer + 2 * WEIGHT_ERROR[weight_format]
        bounds["model_final"] = bounds["model_layer"] * depth
    return bounds


def step_figures(arm, tokens, no_linears_us):
    """An arm's `step` block filled from its samples: tokens/s on each timing path, the linears timed alone
    (`linears_us`, one median a repeat) and their share of the step, and the share by removal (1 - the no-linears
    arm's step time over this arm's; None where that arm has no time). Everything else in the block is left."""
    s = arm["step"]
    for key in STEP_FIGURES:
        s[key] = None
    if arm["us_median"] is None:
        return arm
    s["tokens_per_s"] = tokens * 1e6 / arm["us_median"]
    if arm["host_us_median"] is not None:
        s["host_tokens_per_s"] = tokens * 1e6 / arm["host_us_median"]
    if s["linears_us"]:
        s["linears_us_median"] = statistics.median(s["linears_us"])
        s["linears_share"] = s["linears_us_median"] / arm["us_median"]
    if no_linears_us is not None:
        s["linears_share_removed"] = 1 - no_linears_us / arm["us_median"]
    return arm


STEP_FIGURES = ("tokens_per_s", "host_tokens_per_s", "linears_us_median", "linears_share", "linears_share_removed")


def _differ(a, b):
    return (a is None) != (b is None) or (a is not None and abs(a - b) > 1e-9 * max(abs(a), abs(b)))


def check_steps(receipt, no_linears="no-linears"):
    """What `tilewise check` cannot see in a decode-step receipt: every arm's `step` figures against its samples, its
    bounds against step_bounds, rel_err as its worst layer, and each error within its bound. Returns the problems
    found (empty: none)."""
    found = []
    for i, result in enumerate(receipt["results"]):
        tokens = result["problem"]["N"]
        base = next((a for a in result["arms"] if a["arm"] == no_linears), None)
        for arm in result["arms"]:
            where = f"results[{i}] {result['problem']['name']} [{arm['arm']}]"
            s = arm.get("step")
            if s is None:
                found.append(f"{where}: no step block")
                continue
            again = step_figures({**arm, "step": dict(s)}, tokens, base["us_median"] if base else None)["step"]
            found += [f"{where}: step.{key} {s.get(key)} does not match its samples ({again[key]})"
                      for key in STEP_FIGURES if _differ(s.get(key), again[key])]
            bounds = step_bounds(None if arm["arm"] == no_linears else s["weight_format"], s["layers"])
            found += [f"{where}: step.bounds.{key} {s['bounds'].get(key)} is not the rule's {value}"
                      for key, value in bounds.items() if _differ(s["bounds"].get(key), value)]
            if not arm["correct"]:
                continue  # the checker already names an arm that did not run or erred
            errors = {"layer": s["layer_rel_err"], "final": [s["final_rel_err"]],
                      "model_layer": s["model_layer_rel_err"], "model_final": [s["model_final_rel_err"]]}
            if _differ(arm["rel_err"], max(s["layer_rel_err"], default=None)):
                found.append(f"{where}: rel_err {arm['rel_err']} is not its worst layer's")
            for key, values in errors.items():
                if bounds[key] is None:
                    continue
                if not values or None in values or not all(0 <= v <= bounds[key] for v in values):
                    found.append(f"{where}: step errors {key} {values} are not all within {bounds[key]:.4g}")
    return found


def check_with_tilewise(path, tilewise_bin):
    """Problems `tilewise check` finds in a written receipt (empty when valid), or None without the binary."""
    if not tilewise_bin or not os.access(tilewise_bin, os.X_OK):
        return None
    out = subprocess.run([tilewise_bin, "check", path], capture_output=True, text=True).stdout
    return [line.strip()[2:] for line in out.splitlines() if line.strip().startswith("- ")]
