#!/usr/bin/env bash
# The closest runs for issue 8's cross-check: on one GPU (CUDA_VISIBLE_DEVICES), tilewise's cublaslt-default arm, then
# the peer runner's torch and triton arms on the same problems, back to back.
#   scripts/peers-closest.sh OUTDIR NAME SECONDS PROBLEM-ARGS...
# PROBLEM-ARGS (--suite, --only, --dtypes, --layouts, --cold) go to both. Everything ends within SECONDS: the peer
# runner starts no case past its deadline and lists the rest as skipped, so a second run can take them (--only).
set -uo pipefail
out=$1 name=$2 seconds=$3
shift 3
start=$SECONDS
bin=${TILEWISE_BIN:-build/release/tilewise}
timeout $((seconds / 3)) "$bin" bench "$@" --arms cublaslt-default --baseline cublaslt-default \
  -o "$out/$name-default.json" --overwrite 2>"$out/$name-default.log" | tee "$out/$name-default-table.txt" | tail -n 2
left=$((seconds - (SECONDS - start)))
# The deadline leaves a slow compile (up to about 60 s) and the receipt's check room before the hard limit.
timeout "$left" python3 bench/peers/run.py "$@" --arms torch,triton --deadline-s $((left - 75)) --tilewise "$bin" \
  -o "$out/$name-peers.json" 2>"$out/$name-peers.log" | tail -n 2
