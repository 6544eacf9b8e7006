#!/usr/bin/env bash
# One GPU round for issue 29's decode step, run on the GPU machine over a copy of the tree (no network there):
#   scripts/decode-round.sh [tests] [decode] [linear]        (no step named: all three, in that order)
#   tests    the host-loop GPU tests (tests/device/timing_gpu_test.cpp) where the test binary is there
#   decode   bench/peers/decode_step.py: the Llama-3-8B-shaped 8-layer step and one 70B-class layer, T = 1..16 and
#            a 512-token prefill chunk, every arm (ARMS= overrides; DECODE_ARGS= adds options, e.g. --models), into
#            decode-step.json
#   linear   bench/peers/run.py over llm24 in nn.Linear's orientation: tilewise.linear against F.linear (and
#            torch.mm), bf16, interleaved, into linear-llm24.json
# Uses the carried tilewise binary (build/carry/ or build/release/, TILEWISE_BIN= overrides) and the Python package
# from python/ with its C ABI library (build/carry/ or build/release/libtilewise_c.so, TILEWISE_LIBRARY= overrides),
# building what is missing with CMake. Without the package the tilewise arms are left out and the log says so.
# Receipts, logs and what the machine had are packed into $OUT/decode-round.tar.gz. ROUND_S (default 480) bounds it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export PYTHONUNBUFFERED=1 TILEWISE_SOURCE_DIR=$PWD TILEWISE_KERNELS_DIR=$PWD/kernels TILEWISE_CACHE_DIR=$PWD/.jitcache
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT" "$TILEWISE_CACHE_DIR"
work=$(mktemp -d)
trap 'tar czf "$OUT/decode-round.tar.gz" -C "$work" . && echo "packed $(ls "$work" | wc -l) files"' EXIT
start=$(date +%s)
left() { echo $((${ROUND_S:-480} - ($(date +%s) - start))); }
steps=("$@")
((${#steps[@]})) || steps=(tests decode linear)

[ -f build/carry.tar.xz ] && tar xJf build/carry.tar.xz -C build
first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; }
bin=${TILEWISE_BIN:-$(first build/carry/tilewise build/release/tilewise)}
lib=${TILEWISE_LIBRARY:-$(first build/carry/libtilewise_c.so build/release/libtilewise_c.so)}
tests=$(first build/carry/device_gpu_test build/release/tests/device_gpu_test)
missing=()
[ -n "$bin" ] || missing+=(tilewise)
[ -d python/tilewise ] && [ -z "$lib" ] && missing+=(tilewise_c)
if ((${#missing[@]})); then
  echo "building ${missing[*]}"
  { cmake --preset release && cmake --build --preset release -j"$(nproc)" --target "${missing[@]}"; } \
    >"$work/build.log" 2>&1
  echo "build: exit $? ($(tail -n 1 "$work/build.log"))"
  bin=${bin:-build/release/tilewise}
  [ -d python/tilewise ] && lib=${lib:-build/release/libtilewise_c.so}
fi
"$bin" info >"$work/info.txt" 2>&1 || { echo "tilewise does not run here: $(tail -n 1 "$work/info.txt")"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv >>"$work/info.txt" 2>&1
if [ -n "$lib" ]; then export TILEWISE_LIBRARY=$PWD/$lib PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}; fi
python3 - >"$work/python.txt" 2>&1 <<'EOF'
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
import tilewise
print("tilewise", getattr(tilewise, "__version__", "unknown"), tilewise.__file__)
EOF
if grep -q "^tilewise " "$work/python.txt"; then have_tilewise=1; else have_tilewise=0; fi
cat "$work/info.txt" "$work/python.txt"

for step in "${steps[@]}"; do
  echo "=== $step ($(left) s left)"
  case "$step" in
    tests)
      if [ -n "$tests" ]; then
        timeout 120 "$tests" --gtest_filter='LongKernel.*' >"$work/timing-gpu-tests.log" 2>&1
        echo "timing GPU tests: exit $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$work/timing-gpu-tests.log"
      else
        echo "no device_gpu_test binary carried: skipped"
      fi
      ;;
    decode)
      arms=${ARMS:-}
      if [ -z "$arms" ] && ((!have_tilewise)); then
        arms=torch-bf16,torch-int8,torch-int4-g128,no-linears
        echo "the tilewise package does not import (python.txt): torch's arms only"
      fi
      budget=$(($(left) - ${LINEAR_S:-150}))
      ((budget > 120)) || { echo "decode step: no time left"; continue; }
      timeout "$budget" python3 bench/peers/decode_step.py ${arms:+--arms "$arms"} --deadline-s $((budget - 90)) \
        ${DECODE_ARGS:-} --tilewise "$bin" -o "$work/decode-step.json" 2>"$work/decode-step.log" | tail -n 3
      echo "decode step: exit ${PIPESTATUS[0]}"; tail -n 15 "$work/decode-step.log"
      ;;
    linear)
      arms=torch-linear,torch
      ((have_tilewise)) && arms=torch-linear,tilewise,torch
      budget=$(($(left) - 10))
      ((budget > 60)) || { echo "llm24 nn.Linear: no time left"; continue; }
      timeout "$budget" python3 bench/peers/run.py --suite suites/llm24-linear.txt --dtypes bf16 --layouts TN \
        --arms "$arms" --baseline torch-linear --deadline-s $((budget - 40)) --tilewise "$bin" \
        -o "$work/linear-llm24.json" 2>"$work/linear-llm24.log" | tail -n 3
      echo "llm24 nn.Linear: exit ${PIPESTATUS[0]}"; tail -n 5 "$work/linear-llm24.log"
      ;;
    *) echo "unknown step $step" >&2 ;;
  esac
done
for receipt in "$work"/*.json; do [ -e "$receipt" ] && "$bin" check "$receipt" | head -n 20; done
