#!/usr/bin/env bash
# Sets up, builds and runs the main job: the square suite on the GPU, cuBLASLt's best candidate against its default,
# bf16 TN, ten repeats, into results/. Extra arguments go to `tilewise bench` (e.g. --dtypes bf16,fp16).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
mkdir -p results
out="results/square-$(date -u +%Y%m%d-%H%M%S).json"
exec build/release/tilewise bench --suite suites/square.txt -o "$out" "$@"
