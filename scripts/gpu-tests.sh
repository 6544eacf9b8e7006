#!/usr/bin/env bash
# The GPU tests on a GPU machine, from built test binaries (build/release/tests, or a stripped copy carried to the
# machine), without the build tree ctest needs: every GPU test binary, compute-sanitizer (memcheck, racecheck,
# synccheck) over the kernels' sanitizer sets, and the Python package's tests. A table last; logs in $OUT (or out/).
#   scripts/gpu-tests.sh [BINARIES_DIR] [LIBTILEWISE_C]      e.g. scripts/gpu-tests.sh build/carry build/carry/libtilewise_c.so
# ONLY= the test binaries (unset: families select bench device; empty: none), TESTS_S bounds each (default 200 s);
# JOBS=N runs each test (and parameter instance) of a binary as a process of its own, N at once, each bounded by
# TESTS_S: the tests compile their kernels at run time, so one binary's tests in turn can take past any bound
# (device_gpu_test, whose tests compare timings, still runs alone); exit status 1 when anything failed;
# SANITIZERS= the compute-sanitizer tools (default: memcheck racecheck synccheck; empty: none), SANITIZE_S each;
# FILTER= a gtest filter for the test binaries, SANITIZE_FILTER= one for the sanitizers (default: the kernels'
# sanitizer sets). A LIBTILEWISE_C that is no file skips the Python tests.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bins=${1:-build/release/tests}
lib=${2:-build/release/libtilewise_c.so}
out=${OUT:-$PWD/out}
mkdir -p "$out" "${TILEWISE_CACHE_DIR:=$PWD/.jitcache}"
export TILEWISE_SOURCE_DIR=$PWD TILEWISE_CACHE_DIR PYTHONUNBUFFERED=1
rows=()
run() {  # NAME SECONDS COMMAND...: one row of the table
  local name=$1 seconds=$2 started=$SECONDS
  shift 2
  timeout "$seconds" "$@" >"$out/$name.log" 2>&1
  local rc=$? passed failed
  passed=$(grep -oE '^\[  PASSED  \] [0-9]+' "$out/$name.log" | grep -oE '[0-9]+$')
  failed=$(grep -cE '^\[  FAILED  \] [A-Za-z]' "$out/$name.log")
  rows+=("$(printf '%-28s exit %-3s passed %-4s failed %-3s %4ss' "$name" "$rc" "${passed:--}" "$failed" $((SECONDS - started)))")
  echo "${rows[-1]}"
  ((rc == 0)) || failures=$((failures + 1))
}
# each NAME BINARY: every test of BINARY (each parameter instance apart) in a process of its own, JOBS at once; one
# row for them all. A test passes where its process exits 0 having passed it; one cut by TESTS_S is named as such.
each() {
  local name=$1 bin=$2 started=$SECONDS dir=$out/$1 listing rc tests
  rm -rf "$dir" && mkdir -p "$dir"
  listing=$(timeout 60 "$bin" --gtest_list_tests ${FILTER:+--gtest_filter="$FILTER"} 2>&1)
  rc=$?
  tests=$(awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}' <<<"$listing" | grep -v 'DISABLED_')
  if ((rc != 0)) || [ -z "$tests" ]; then
    rows+=("$(printf '%-28s listed no tests (exit %s): %s' "$name" "$rc" "$(tail -n 1 <<<"$listing")")")
    failures=$((failures + 1))
    echo "${rows[-1]}"
    return
  fi
  xargs -P "$JOBS" -I{} sh -c 'timeout "$0" "$1" --gtest_filter="$2" >"$3/$(echo "$2" | tr / _).log" 2>&1
    echo "$? $2" >>"$3/status"' "${TESTS_S:-200}" "$bin" {} "$dir" <<<"$tests"
  local passed=0 skipped=0 failed=0 code test log
  while read -r code test; do
    log="$dir/$(echo "$test" | tr / _).log"
    if ((code == 0)) && grep -q '^\[  PASSED  \] 1 test' "$log"; then
      passed=$((passed + 1))
    elif ((code == 0)) && grep -q '^\[  SKIPPED \] 1 test' "$log"; then
      skipped=$((skipped + 1))
    else
      failed=$((failed + 1))
      if ((code == 124)); then echo "  ran past ${TESTS_S:-200} s: $test"; else echo "  failed (exit $code): $test"; fi
    fi
  done <"$dir/status"
  failures=$((failures + failed))
  rows+=("$(printf '%-28s each     passed %-4s failed %-3s skipped %-3s %4ss' "$name" "$passed" "$failed" "$skipped" \
    $((SECONDS - started)))")
  echo "${rows[-1]}"
}
[[ -z ${JOBS:-} || $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "JOBS=$JOBS: a count of processes, 1 or more" >&2; exit 2; }
failures=0
for t in ${ONLY-families select bench device}; do
  [ -x "$bins/${t}_gpu_test" ] || continue
  # device_gpu_test's timing tests compare timings, so they run alone, never beside other processes.
  if [ -n "${JOBS:-}" ] && [ "$t" != device ]; then
    each "$t" "$bins/${t}_gpu_test"
  else
    run "$t" "${TESTS_S:-200}" "$bins/${t}_gpu_test" ${FILTER:+--gtest_filter="$FILTER"}
  fi
done
if [ -x "$bins/families_gpu_test" ]; then
  sm90='Sm90Sanitized.*:Sm90StreamK.*:Sm90PackedGpu.SanitizedSet'
  gemv='GemvGpu.EveryFormat*:GemvGpu.BulkSanitizedSet:GemvGpu.MmaTilesSanitizedSet:GemvGpu.TheMmaEnginesNextStepLoads*:GemvGpu.Quantizer*'
  for tool in ${SANITIZERS-memcheck racecheck synccheck}; do
    run "sanitize-$tool" "${SANITIZE_S:-150}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$bins/families_gpu_test" \
      --gtest_filter="${SANITIZE_FILTER:-$sm90:$gemv}"
  done
fi
if [ -f "$lib" ]; then
  (cd tests/python && PYTHONPATH=$PWD/../../python TILEWISE_LIBRARY=$(realpath "../../$lib") \
     TILEWISE_BIN=$(realpath "../../$bins/tilewise") timeout 150 python3 -m unittest test_gpu test_cpu) >"$out/python.log" 2>&1
  rc=$?
  rows+=("$(printf '%-28s exit %-3s %s' python "$rc" "$(tail -n 1 "$out/python.log")")")
  ((rc == 0)) || failures=$((failures + 1))
fi
echo "=== GPU tests"
printf '%s\n' "${rows[@]}"
grep -rh --include='*.log' "^\[  FAILED  \] [A-Za-z]\|ERROR SUMMARY: [1-9]" "$out" | sort -u | head -20
exit $((failures > 0))
