#!/usr/bin/env bash
# Sets up, builds and runs the main job on the GPU: tilewise's selection (the arm `selected`, what tilewise::gemm
# runs with the shipped database) against cuBLASLt's default and its best heuristic candidate, on llm24's problems in
# both orientations (column-major C and nn.Linear's y = x W^T), bf16 TN, cold, into results/; then the headline
# table of that receipt. Extra arguments go to `tilewise bench` (e.g. --dtypes bf16,fp16,fp8).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
mkdir -p results
out="results/selected-llm24-$(date -u +%Y%m%d-%H%M%S).json"
build/release/tilewise bench --suite suites/llm24.txt --suite suites/llm24-linear.txt --dtypes bf16 --layouts TN \
  --arms cublaslt-default,cublaslt,selected --baseline cublaslt-default --cold -o "$out" "$@"
build/release/tilewise headline "$out"
