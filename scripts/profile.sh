#!/usr/bin/env bash
# Nsight Compute counters, one kernel launch an arm and problem, on the GPU machine over a copy of the tree: what a
# note must say limits a kernel (throughput against the read, issue rate, eligible warps, the stall reasons, registers
# and occupancy), as one table.
#   scripts/profile.sh [ARM...]        default: gemv:int4 gemv:int8 gemv:fp8 gemv:bf16
# SUITE= (default suites/decode.txt), ONLY= its problems, comma-separated (default dec_m1_12288), DTYPE= (bf16),
# LAYOUT= (TN). The kernel profiled is the arm's family's (gemv*, sm90_gemm, cuBLASLt's nvjet/xmma/cutlass kernels);
# KERNELS= an ncu -k filter overrides it. Runs the carried tilewise binary (build/carry/, else build/release/). The
# counters are from ncu's own replay of the arm's first launch (caches flushed: cold), not from the harness's
# timing; the harness's figures stay in its receipts. Raw CSV and the table go to $OUT (or out/). SOURCE=1 also
# samples where the warps stall, per SASS instruction (ncu's source page), and lists the instructions that hold
# the most samples (source-<problem>-<arm>.txt).
#   SUITE=suites/sm90-gaps.txt ONLY=$(grep -o '^s[0-9_a-z]*' suites/sm90-gaps.txt | paste -sd,) scripts/profile.sh sm90 cublaslt-default
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/out}
mkdir -p "$out" "${TILEWISE_CACHE_DIR:=$PWD/.jitcache}"
export TILEWISE_SOURCE_DIR=$PWD TILEWISE_KERNELS_DIR=$PWD/kernels TILEWISE_CACHE_DIR
bin=build/carry/tilewise
[ -x "$bin" ] || bin=build/release/tilewise
arms=("$@")
((${#arms[@]})) || arms=(gemv:int4 gemv:int8 gemv:fp8 gemv:bf16)
IFS=, read -ra problems <<<"${ONLY:-dec_m1_12288}"
stalls='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
# The harness's own kernels (fill_uniform, reference_gemm, compare_to_reference, stream_read) never match these.
kernels_of() {
  case $1 in
    gemv*) echo 'regex:^gemv' ;;
    sm90*) echo 'regex:^sm90_gemm' ;;
    cublaslt*) echo 'regex:^(nvjet|sm90_xmma|cutlass)' ;;
    *) echo "no kernel filter for arm $1: set KERNELS" >&2; return 1 ;;
  esac
}
runs=()
for problem in "${problems[@]}"; do
  for arm in "${arms[@]}"; do
    filter=${KERNELS:-$(kernels_of "$arm")} || continue
    name=$problem-${arm//[^A-Za-z0-9]/-}
    # The receipt of this run is not one (no warm-up): its only use is to launch the kernel under ncu.
    timeout 240 ncu -k "$filter" -c 1 --csv --page details \
      --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats \
      --section Occupancy --metrics "$stalls" \
      "$bin" bench --suite "${SUITE:-suites/decode.txt}" --only "$problem" --dtypes "${DTYPE:-bf16}" \
      --layouts "${LAYOUT:-TN}" --arms "$arm" --baseline "$arm" --repeats 1 --warmup-s 0 -o "$(mktemp -u)" \
      >"$out/ncu-$name.csv" 2>"$out/ncu-$name.log"
    echo "$problem $arm: ncu exit $?"
    runs+=("$problem" "$arm")
    [ "${SOURCE:-0}" = 1 ] || continue
    timeout 240 ncu -k "$filter" -c 1 --csv --page source --print-source sass --section SourceCounters \
      --section WarpStateStats \
      "$bin" bench --suite "${SUITE:-suites/decode.txt}" --only "$problem" --dtypes "${DTYPE:-bf16}" \
      --layouts "${LAYOUT:-TN}" --arms "$arm" --baseline "$arm" --repeats 1 --warmup-s 0 -o "$(mktemp -u)" \
      >"$out/ncu-source-$name.csv" 2>"$out/ncu-source-$name.log"
    echo "$problem $arm: ncu source page exit $?"
    python3 - "$out/ncu-source-$name.csv" <<'EOF' >"$out/source-$name.txt"
import csv, io, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith('"')]
# The page opens with the kernel's name on a line of its own; the table's header is the line that names Address.
start = next((i for i, l in enumerate(lines) if l.startswith('"Address"')), 0)
rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
if not rows:
    sys.exit("no source rows")
def column(*words):
    for c in rows[0]:
        if all(w in c for w in words):
            return c
    return None
sass, samples, idle = column("Source"), column("Warp Stall Sampling (All"), column("Warp Stall Sampling (Not")
def value(r, c):
    try:
        return float((r.get(c) or "0").replace(",", ""))
    except ValueError:
        return 0.0
total = sum(value(r, samples) for r in rows) or 1.0
print(f"{len(rows)} SASS instructions, {total:.0f} stall samples; the 40 that hold the most:")
print(f"{'share':>6} {'samples':>8} {'not issued':>10}  instruction")
for r in sorted(rows, key=lambda r: -value(r, samples))[:40]:
    print(f"{value(r, samples) / total:6.1%} {value(r, samples):8.0f} {value(r, idle):10.0f}  {r.get(sass, '')}")
# What the kernel spends its issue slots on: warp instructions executed per opcode (predicate and modifiers dropped).
executed = "Instructions Executed" if "Instructions Executed" in rows[0] else column("Instructions Executed")
by_opcode = {}
for r in rows:
    words = [w for w in (r.get(sass) or "").split() if not w.startswith("@")]
    if words:
        op = words[0].split(".")[0]
        by_opcode[op] = by_opcode.get(op, 0.0) + value(r, executed)
issued = sum(by_opcode.values()) or 1.0
print(f"\n{issued:.0f} warp instructions executed; the 15 opcodes that take the most:")
for op, n in sorted(by_opcode.items(), key=lambda kv: -kv[1])[:15]:
    print(f"{n / issued:6.1%} {n:10.0f}  {op}")
EOF
  done
done
python3 - "$out" "${runs[@]}" <<'EOF' | tee "$out/profile.txt"
import csv, io, re, sys
out, runs = sys.argv[1], sys.argv[2:]
wanted = [("Duration", "duration"), ("DRAM Throughput", "% DRAM"), ("Issued Warp Per Scheduler", "issued/cycle"),
          ("Eligible Warps Per Scheduler", "eligible"), ("Active Warps Per Scheduler", "active"),
          ("Warp Cycles Per Issued Instruction", "cycles/issue"), ("Registers Per Thread", "registers"),
          ("Achieved Occupancy", "% occupancy")]
rows = []
for problem, arm in zip(runs[0::2], runs[1::2]):
    text = open(f"{out}/ncu-{problem}-{re.sub(r'[^A-Za-z0-9]', '-', arm)}.csv").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    values, stalls = {}, {}
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        metric, value = r.get("Metric Name", ""), r.get("Metric Value", "").replace(",", "")
        values[metric] = f"{value} {r.get('Metric Unit', '')}".strip() if metric == "Duration" else value
        m = re.match(r"smsp__average_warps_issue_stalled_(.*)_per_issue_active\.ratio", metric)
        if m:
            try:
                stalls[m.group(1)] = float(value)
            except ValueError:
                pass
    top = ", ".join(f"{k} {v:.1f}" for k, v in sorted(stalls.items(), key=lambda kv: -kv[1])[:3])
    rows.append([problem, arm] + [values.get(w, "-") for w, _ in wanted] + [top or "-"])
head = ["problem", "arm"] + [h for _, h in wanted] + ["top stalls (cycles a warp waits per issued instruction)"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for r in rows:
    print("| " + " | ".join(r) + " |")
EOF
