#!/usr/bin/env bash
# CI's hardening step (docs/reliability.md): in a build folder of its own (build/hardening, clang, every C++ target
# under AddressSanitizer and UndefinedBehaviorSanitizer, any finding fatal),
#   1. each libFuzzer harness of tests/fuzz runs FUZZ_SECONDS over its seed corpus and its regression inputs, and the
#      script prints its time, executions and crashes (a crash fails the step and leaves the input in
#      build/hardening/fuzz-artifacts/);
#   2. the CPU tests of the readers, checkers, writers and the command line run under the sanitizers: core, receipt,
#      jit (the cache), protocol, tune (campaigns), families (weight files) and the CLI; left out are the tests that
#      compile every kernel with NVRTC (minutes each, and the code they run is NVRTC's), the browser check, and, to
#      keep the step near ten minutes on two cores, the test binaries of select and report (the database reader is
#      fuzzed instead) and the arithmetic-heavy searches over the sm90 and gemv spaces and the rule fit (seven
#      minutes of CPU under the sanitizers, and no input is read in them).
#   scripts/ci-hardening.sh            FUZZ_SECONDS=20 by default (nine harnesses: about three minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${FUZZ_SECONDS:-20}
build=build/hardening
start=$SECONDS

# clang and its libFuzzer runtime (Debian: clang, libclang-rt-<major>-dev).
if ! command -v clang++ >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/f.cpp"
if ! clang++ -fsanitize=fuzzer "$probe/f.cpp" -o "$probe/f" 2>/dev/null; then
  major=$(clang++ -dumpversion | cut -d. -f1)
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "libclang-rt-$major-dev" >/dev/null
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="-O1 -g1" -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CUDA_HOST_COMPILER=g++ -DCMAKE_CUDA_ARCHITECTURES=90a -DBUILD_TESTING=ON -DTILEWISE_FUZZ=ON \
  "${launcher[@]}" >/dev/null
harnesses=(suite receipt database floor campaign protocol weight_file config gunzip)
tests=(core_test receipt_test jit_test protocol_test tune_test families_test cli_test)
cmake --build "$build" -j"$(nproc)" --target tilewise "${harnesses[@]/#/fuzz_}" "${tests[@]}" >"$build/build.log" 2>&1 ||
  { tail -n 40 "$build/build.log"; exit 1; }
echo "hardening: built in $((SECONDS - start)) s"

# CUDA's runtime maps memory where ASan keeps its shadow gap; the CUDA libraries' own allocations are not ours to
# leak-check.
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

failed=0
rm -rf "$build/fuzz-artifacts"
mkdir -p "$build/fuzz-artifacts"
printf '%-12s %8s %12s %8s\n' harness seconds executions crashes
for h in "${harnesses[@]}"; do
  work=$(mktemp -d)  # new inputs the run finds go here, never into the committed corpus
  seeds=tests/fuzz/corpus/$h regressions=tests/fuzz/regressions/$h
  mkdir -p "$seeds" "$regressions"
  log=$build/fuzz-$h.log
  t0=$SECONDS
  status=0
  "$build/tests/fuzz/fuzz_$h" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$h-" "$work" "$seeds" "$regressions" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  crashes=$(find "$build/fuzz-artifacts" -name "$h-*" | wc -l)
  printf '%-12s %8d %12s %8d\n' "$h" $((SECONDS - t0)) "${runs:-?}" "$crashes"
  if ((status != 0 || crashes > 0)); then
    failed=1
    grep -E 'ERROR|SUMMARY|runtime error|deadly signal|Test unit written' "$log" | head -n 20 || tail -n 20 "$log"
  fi
  rm -rf "$work"
done

# The CPU tests of those binaries under the sanitizers (the label and exclusions as above).
ctest --test-dir "$build" -L cpu -LE browser -E 'CompileWithoutSpills|NvrtcKernels|Sm90Space|GemvSpace|RuleFit' \
  -j"$(nproc)" --output-on-failure --timeout 600 >"$build/ctest.log" 2>&1 || failed=1
echo "under ASan and UBSan: $(grep -E 'tests passed|tests failed' "$build/ctest.log" || tail -n 1 "$build/ctest.log")"
((failed)) && grep -E '^\s+[0-9]+ - ' "$build/ctest.log" | head -n 30 || true
echo "hardening: $((SECONDS - start)) s in all"
exit "$failed"
