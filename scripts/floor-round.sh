#!/usr/bin/env bash
# One GPU round for the floor under selection (src/select/floor.hpp), run on the GPU machine over a copy of the tree:
#   scripts/floor-round.sh [compile] [tests] [sanitize] [sweep] [retime] [fresh] [tune-fresh] [ship-reset] [ship-col]
#     [ship-lin] [ship-tsweep] [tsweep] [probe] [llm24]
# with the carried binaries (build/release/tilewise and the GPU test binaries). Receipts and logs are packed into
# $OUT/floor-round.tar.gz.
#   compile   every family's rule for the suites the steps run, built in parallel before anything is timed
#   tests     the GPU tests of selection (both orientations, every family's rule) and of the gemv family (FAMILY_TESTS=
#             a gtest filter of the families' GPU tests in its place)
#   sanitize  compute-sanitizer memcheck and racecheck on the gemv kernels storing y rows (nn.Linear's orientation)
#   sweep     the sweep's fitted and judged halves: every family's rule and both cuBLASLt arms, cold
#   fresh     a fresh sample with the arm `selected` (the library's defaults; the shipped database holds none of its
#             problems) against both cuBLASLt arms, cold
#   tune-fresh  the fresh sample again with first-use tuning from an empty database (selected:tune:), cold
#   ship-reset, ship-col, ship-lin, ship-tsweep
#             first-use tuning over llm24 and decode in both orientations and the T sweep, one command each: the
#             database data/database-h200.json ships (ship-database.json), with receipts against cuBLASLt
#   tsweep    T = 1..4096 on three 7-8B weight shapes in nn.Linear's orientation, `selected` against cuBLASLt
#   llm24     llm24's 120 cases and their nn.Linear twins, `selected` (the library's defaults) against cuBLASLt
#   retime    after a family's rule changed: the floor's outcomes it no longer chooses, re-timed beside cuBLASLt's
#             default as the sweep timed them, and the floor refitted with them into floor-refit.json (packed with the
#             receipts; copy it over data/floor-h200.json to build it in). The library builds its floor in, so `fresh`
#             after a refit runs the arm selected:floor:<floor-refit.json> in place of `selected`; the other steps
#             still run the built-in floor
set -uo pipefail
cd "$(dirname "$0")/.."
export TILEWISE_SOURCE_DIR=$PWD TILEWISE_KERNELS_DIR=$PWD/kernels TILEWISE_CACHE_DIR=$PWD/.jitcache PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT" "$TILEWISE_CACHE_DIR"
work=$(mktemp -d)
trap 'tar czf "$OUT/floor-round.tar.gz" -C "$work" . && echo "packed $(ls "$work" | wc -l) files"' EXIT
# The working tree and what is carried must fit in 64 MiB: stripped copies under build/carry/ (or packed as
# build/carry.tar.xz) serve where present.
[ -f build/carry.tar.xz ] && tar xJf build/carry.tar.xz -C build
# Kernels built beforehand off the GPU (`tilewise compile` into a cache folder) travel as build/carry/jitcache.
[ -d build/carry/jitcache ] && export TILEWISE_CACHE_DIR=$PWD/build/carry/jitcache
bin=build/release/tilewise tests=build/release/tests
[ -x build/carry/tilewise ] && bin=build/carry/tilewise tests=build/carry
"$bin" info | tee "$work/info.txt" || exit 1
start=$(date +%s)
fresh_arm=selected  # the library's defaults; a refitted floor after `retime`
left() { echo $((${ROUND_S:-560} - ($(date +%s) - start))); }
# bench NAME SECONDS ARGS...: one receipt, its table and its progress log
bench() {
  local name=$1 seconds=$2
  shift 2
  ((seconds > 30)) || { echo "$name: no time left"; return; }
  timeout "$seconds" "$bin" bench "$@" --cold --repeats "${REPEATS:-5}" --selection-rounds 2 --rewarm-ms 30 \
    -o "$work/$name.json" 2>"$work/$name.log" | tee "$work/$name-table.txt" | tail -n 4
  echo "$name: exit $? after $(tail -n 1 "$work/$name.log" | cut -c1-40)"
}
for step in "$@"; do
  echo "=== $step ($(left) s left)"
  case "$step" in
    compile)
      timeout 200 "$bin" compile --suite suites/sweep-fit.txt --suite suites/sweep-judge.txt --suite suites/sweep-fresh.txt \
        --suite suites/tsweep-linear.txt --suite suites/llm24.txt --suite suites/llm24-linear.txt --suite suites/decode.txt \
        --suite suites/decode-linear.txt --dtypes bf16,fp16,fp8 --layouts TN,NN --first-use >"$work/compile.log" 2>&1
      echo "compile: exit $?"; tail -n 1 "$work/compile.log"
      ;;
    tests)
      timeout 200 "$tests/select_gpu_test" >"$work/select-gpu-tests.log" 2>&1
      echo "select GPU tests: exit $?"; grep -E "^\[  (PASSED|FAILED) " "$work/select-gpu-tests.log"
      if [ -x "$tests/families_gpu_test" ]; then
        timeout 240 "$tests/families_gpu_test" --gtest_filter="${FAMILY_TESTS:-Gemv*:*gemv*:*Gemv*}" \
          >"$work/family-gpu-tests.log" 2>&1
        echo "family GPU tests: exit $?"; grep -E "^\[  (PASSED|FAILED) " "$work/family-gpu-tests.log"
      fi
      ;;
    sanitize)
      for tool in memcheck racecheck; do
        timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests/families_gpu_test" \
          --gtest_filter='GemvGpu.EveryEngineStoresYRowsInNnLinearsOrientation' >"$work/sanitizer-$tool.log" 2>&1
        echo "compute-sanitizer $tool: exit $?"; tail -n 2 "$work/sanitizer-$tool.log"
      done
      ;;
    sweep)
      for half in fit judge; do
        share=$(($(left) - 5))
        [ $half = fit ] && share=$((share / 2))
        bench "sweep-$half" $share --suite "suites/sweep-$half.txt" --arms cublaslt-default,cublaslt,sm90,gemv \
          --baseline cublaslt-default
      done
      ;;
    fresh) bench sweep-fresh $(($(left) - 5)) --suite suites/sweep-fresh.txt --arms "cublaslt-default,cublaslt,$fresh_arm" \
             --baseline cublaslt-default ;;
    # CASES=FROM-TO (lines of the suite, from 1) splits the sample over commands, each from an empty database.
    tune-fresh) rm -rf round-state/fresh; mkdir -p round-state/fresh
      range=${CASES:-1-200}
      only=$(grep -v '^#' suites/sweep-fresh.txt | awk '{print $1}' | sed -n "${range%-*},${range#*-}p" | paste -sd,)
      bench "sweep-fresh-tuned-$range" $(($(left) - 5)) --suite suites/sweep-fresh.txt --only "$only" \
        --arms "cublaslt-default,selected:tune:round-state/fresh/database.json" --baseline cublaslt-default
      cp round-state/fresh/database.json "$work/fresh-database-$range.json" ;;
    # The shipped database is tuned over several commands on one warm machine: round-state/ is kept between them.
    ship-reset) rm -rf round-state; mkdir -p round-state ;;
    ship-col) bench ship-col $(($(left) - 5)) --suite suites/llm24.txt --dtypes bf16,fp16,fp8 --layouts TN,NN \
        --arms "cublaslt-default,selected:tune:round-state/ship-database.json" --baseline cublaslt-default
      cp round-state/ship-database.json "$work/" ;;
    ship-lin) bench ship-lin $(($(left) - 5)) --suite suites/llm24-linear.txt --suite suites/decode.txt \
        --suite suites/decode-linear.txt --dtypes bf16,fp16,fp8 --layouts TN \
        --arms "cublaslt-default,selected:tune:round-state/ship-database.json" --baseline cublaslt-default
      cp round-state/ship-database.json "$work/" ;;
    ship-tsweep) bench ship-tsweep $(($(left) - 5)) --suite suites/tsweep-linear.txt --dtypes bf16 \
        --arms "cublaslt-default,selected:tune:round-state/ship-database.json" --baseline cublaslt-default
      cp round-state/ship-database.json "$work/" ;;
    tsweep) bench tsweep-linear $(($(left) - 5)) --suite suites/tsweep-linear.txt --dtypes bf16 \
              --arms "${ARMS:-cublaslt-default,cublaslt,selected}" --baseline cublaslt-default ;;
    # A problem where `selected` runs cuBLASLt's default's own configuration, timed against it at 10 repeats: the
    # same kernel should tie (PROBE= the sweep-fresh names).
    probe) REPEATS=10 bench probe $(($(left) - 5)) --suite suites/sweep-fresh.txt --only "$PROBE" \
             --arms cublaslt-default,selected:floor --baseline cublaslt-default ;;
    # ARMS= the arms (cuBLASLt's best arm, which times every heuristic candidate, costs most of the time)
    llm24) arms=${ARMS:-cublaslt-default,cublaslt,selected}
           bench llm24-col $(($(left) / 2)) --suite suites/llm24.txt --dtypes bf16,fp16,fp8 --layouts TN,NN \
             --arms "$arms" --baseline cublaslt-default
           bench llm24-lin $(($(left) - 5)) --suite suites/llm24-linear.txt --dtypes bf16,fp16,fp8 --layouts TN \
             --arms "$arms" --baseline cublaslt-default ;;
    # RETIME_FIT and RETIME_JUDGE: the receipts each half of the floor was fitted from, in order (`floor fit` takes
    # a later receipt's outcome of a problem in place of an earlier one's, so the re-timed receipts go last).
    retime)
      read -r -a fit <<<"${RETIME_FIT:-results/floor-sweep-fit-v2.json results/floor-retime-fit-v3.json}"
      read -r -a judge <<<"${RETIME_JUDGE:-results/floor-sweep-judge-v2.json results/floor-retime-judge-v3.json}"
      "$bin" floor fit --fit "${fit[@]}" --judge "${judge[@]}" -o "$work/floor-as-timed.json" \
        --report "$work/floor-as-timed.md" >/dev/null || continue
      sed -n 's/^- [a-z0-9]* on \([^:]*\):.*/\1/p' "$work/floor-as-timed.md" | sort -u >"$work/stale.txt"
      echo "retime: $(wc -l <"$work/stale.txt") problems with an outcome their rule no longer chooses"
      for half in fit judge; do
        only=$(grep -v '^#' "suites/sweep-$half.txt" | awk '{print $1}' | grep -x -F -f "$work/stale.txt" | paste -sd,)
        [ -n "$only" ] || continue
        bench "floor-retime-$half" $(($(left) / 2)) --suite "suites/sweep-$half.txt" --only "$only" \
          --arms cublaslt-default,sm90,gemv --baseline cublaslt-default
        [ -f "$work/floor-retime-$half.json" ] || continue 2
        [ $half = fit ] && fit+=("$work/floor-retime-fit.json") || judge+=("$work/floor-retime-judge.json")
      done
      "$bin" floor fit --fit "${fit[@]}" --judge "${judge[@]}" -o "$work/floor-refit.json" --report "$work/floor-fit.md" \
        >"$work/floor-fit.log" 2>&1
      rc=$?; tail -n 12 "$work/floor-fit.log"
      if ((rc == 0)); then fresh_arm=selected:floor:$work/floor-refit.json; else echo "retime: the refit failed ($rc)"; fi
      echo "retime: \`fresh\` runs $fresh_arm" ;;
    *) echo "unknown step $step" >&2 ;;
  esac
done
