#!/usr/bin/env bash
# Nsight Compute counters for the decode GEMV, one kernel launch an arm, on the GPU machine over a copy of the tree:
# what issue 31's notes must say limits a format (throughput against the read, issue rate, eligible warps, the stall
# reasons, registers and occupancy), as one table.
#   scripts/profile-gemv.sh [ARM...]        default: gemv:int4 gemv:int8 gemv:fp8 gemv:bf16
# ONLY= the decode suite's problems (default dec_m1_12288); the carried tilewise binary (build/carry/, else
# build/release/). The counters are from ncu's own replay of the arm's first launch (caches flushed: cold), not from
# the harness's timing; the harness's figures stay in its receipts. Raw CSV and the table go to $OUT (or out/).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/out}
mkdir -p "$out" "${TILEWISE_CACHE_DIR:=$PWD/.jitcache}"
export TILEWISE_SOURCE_DIR=$PWD TILEWISE_KERNELS_DIR=$PWD/kernels TILEWISE_CACHE_DIR
bin=build/carry/tilewise
[ -x "$bin" ] || bin=build/release/tilewise
arms=("$@")
((${#arms[@]})) || arms=(gemv:int4 gemv:int8 gemv:fp8 gemv:bf16)
stalls='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
for arm in "${arms[@]}"; do
  name=${arm//[^A-Za-z0-9]/-}
  # The harness's warm-up and plain reads run stream_read; `^gemv` matches only the family's kernels. The receipt of
  # this run is not one (no warm-up): its only use is to launch the kernel under ncu.
  timeout 240 ncu -k 'regex:^gemv' -c 1 --csv --page details \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats \
    --section Occupancy --metrics "$stalls" \
    "$bin" bench --suite suites/decode.txt --only "${ONLY:-dec_m1_12288}" --dtypes bf16 --arms "$arm" \
    --baseline "$arm" --repeats 1 --warmup-s 0 -o "$(mktemp -u)" >"$out/ncu-$name.csv" 2>"$out/ncu-$name.log"
  echo "$arm: ncu exit $?"
done
python3 - "$out" "${arms[@]}" <<'EOF' | tee "$out/profile-gemv.txt"
import csv, io, re, sys
out, arms = sys.argv[1], sys.argv[2:]
wanted = [("Duration", "duration"), ("DRAM Throughput", "% DRAM"), ("Issued Warp Per Scheduler", "issued/cycle"),
          ("Eligible Warps Per Scheduler", "eligible"), ("Active Warps Per Scheduler", "active"),
          ("Warp Cycles Per Issued Instruction", "cycles/issue"), ("Registers Per Thread", "registers"),
          ("Achieved Occupancy", "% occupancy")]
rows = []
for arm in arms:
    text = open(f"{out}/ncu-{re.sub(r'[^A-Za-z0-9]', '-', arm)}.csv").read()
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
    rows.append([arm] + [values.get(w, "-") for w, _ in wanted] + [top or "-"])
head = ["arm"] + [h for _, h in wanted] + ["top stalls (cycles a warp waits per issued instruction)"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for r in rows:
    print("| " + " | ".join(r) + " |")
EOF
