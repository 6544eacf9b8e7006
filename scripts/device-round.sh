#!/usr/bin/env bash
# One round on the GPU machine: use the carried build if it runs there (else build), run the GPU tests and the
# benchmarks named on the command line, and leave receipts and logs under $OUT.
#   scripts/device-round.sh smoke|tests|instrument ...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
bin=build/release/tilewise
if ! "$bin" info >"$OUT/info.txt" 2>&1; then
  echo "carried build does not run here ($(tail -n1 "$OUT/info.txt")); building" >&2
  cmake --preset release >/dev/null && cmake --build --preset release -j"$(nproc)" 2>&1 | tail -n 5
  "$bin" info >"$OUT/info.txt" 2>&1
fi
cat "$OUT/info.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader

for step in "$@"; do
  echo "=== $step"
  case "$step" in
    smoke)
      "$bin" bench --suite suites/llm24.txt --only sqS,sqL,d4k_qkv_dec,sn_16_dec --dtypes bf16,fp8 --layouts TN,NN \
        --warmup-s 2 --repeats 3 -o "$OUT/smoke-warm.json" --overwrite 2>&1 | tail -n 40
      "$bin" bench --suite suites/decode.txt --only dec_m1_12288 --dtypes bf16 --cold --pad 8 \
        --warmup-s 2 --repeats 3 -o "$OUT/smoke-cold.json" --overwrite 2>&1 | tail -n 20
      ;;
    tests)
      ctest --test-dir build/release -L gpu --output-on-failure 2>&1 | tee "$OUT/gpu-tests.log" | tail -n 30
      ;;
    sanitize)
      for tool in memcheck racecheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 3 build/release/tests/device_gpu_test \
          --gtest_filter='Reference.*:Operands.*' >"$OUT/sanitizer-$tool.log" 2>&1
        echo "compute-sanitizer $tool: exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer-$tool.log") clean summaries)"
        tail -n 3 "$OUT/sanitizer-$tool.log"
      done
      ;;
    square|decode|llm24)
      case "$step" in
        square) args=(--suite suites/square.txt --dtypes bf16,fp16,fp8 --layouts TN,NN) ;;
        decode) args=(--suite suites/decode.txt --dtypes bf16,fp16,fp8 --layouts TN --cold) ;;
        llm24) args=(--suite suites/llm24.txt --dtypes bf16,fp16,fp8 --layouts TN,NN --cold) ;;
      esac
      "$bin" bench "${args[@]}" -o "$OUT/$step.json" --overwrite 2>"$OUT/$step.log" | tee "$OUT/$step-table.txt" | tail -n 12
      ;;
    *) echo "unknown step $step" >&2 ;;
  esac
done
