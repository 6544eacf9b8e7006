#!/usr/bin/env bash
# One round on the GPU machine: use the carried build if it runs there (else build), run the GPU tests and the
# benchmarks named on the command line, and leave receipts and logs in $OUT/round.tar.gz.
#   scripts/device-round.sh [smoke] [tests] [sanitize] [square] [decode] [llm24] [protocol-decode]
#                          [peers-smoke] [peers-torch] [peers-triton] [crosscheck-square] [crosscheck-torch]
#                          [sm90-tests] [sass] [sm90-explore] [sm90-sanitize] [square-sm90] [decode-gemv] [family-tests]
#                          [peers-gpus] [gemv-engines] [sm90-sweep] [tune-llm24] [selected-llm24] [grid-vs-descent]
#                          [host-gpu-tests] [decide-llm24] [gemv-bulk] [gemv-bulk-sanitize] [issue7] [kscan-stride]
#                          [sm90-gaps] [gemv-prefetch] [old-kernels] [sm90-one-consumer-widths]
#                          [sm90-one-consumer-judge] [kernel-tests] [copy-alone] [order-persistent]
#                          [order-persistent-judge]
set -uo pipefail
cd "$(dirname "$0")/.."
export TILEWISE_SOURCE_DIR=$PWD  # the GPU tests read suites from this copy, not from where they were built
# Everything goes to $work and is packed into one archive at the end (the device tool returns at most 8 files).
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'tar czf "$OUT/round.tar.gz" -C "$work" . && echo "packed $(ls "$work" | wc -l) files into round.tar.gz"' EXIT
bin=${TILEWISE_BIN:-build/release/tilewise}
tests=${TILEWISE_TESTS:-build/release/tests}
if ! "$bin" info >"$work/info.txt" 2>&1; then
  echo "carried build does not run here ($(tail -n1 "$work/info.txt")); building" >&2
  cmake --preset release >/dev/null && cmake --build --preset release -j"$(nproc)" 2>&1 | tail -n 5
  "$bin" info >"$work/info.txt" 2>&1
fi
cat "$work/info.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader

for step in "$@"; do
  echo "=== $step"
  case "$step" in
    smoke)
      "$bin" bench --suite suites/llm24.txt --only sqS,sqL,d4k_qkv_dec,sn_16_dec --dtypes bf16,fp8 --layouts TN,NN \
        --warmup-s 2 --repeats 3 -o "$work/smoke-warm.json" --overwrite 2>&1 | tail -n 40
      "$bin" bench --suite suites/decode.txt --only dec_m1_12288 --dtypes bf16 --cold --pad 8 \
        --warmup-s 2 --repeats 3 -o "$work/smoke-cold.json" --overwrite 2>&1 | tail -n 20
      ;;
    sm90-tests)
      # One process per configuration, so a fault is pinned on its configuration; then stream-K's determinism and
      # the first rule on every test shape.
      configs=$("$tests/families_gpu_test" --gtest_list_tests --gtest_filter='Grid/Sm90Configuration.*' | grep -c '/[0-9]')
      for ((i = 0; i < configs; i++)); do
        timeout 120 "$tests/families_gpu_test" --gtest_filter="Grid/Sm90Configuration.*/$i" >>"$work/sm90-tests.log" 2>&1
        echo "sm90 grid configuration $i: exit $?"
      done
      timeout 150 "$tests/families_gpu_test" --gtest_filter='Sm90StreamK.*:Sm90FirstRule.*:Sm90Sanitized.*:Sm90Pdl.*' \
        >>"$work/sm90-tests.log" 2>&1
      echo "sm90 stream-K, first rule, sanitized set, dependent launch: exit $?"
      grep -E "^\[  (FAILED|PASSED) " "$work/sm90-tests.log" | sort | uniq -c
      ;;
    sass)
      # The first rule's kernels for the square suite, disassembled: each must issue HGMMA (QGMMA for fp8).
      "$bin" compile --suite suites/square.txt --dtypes bf16,fp16,fp8 --layouts TN,NN --first-rule \
        --cubin-dir "$work/cubins" >"$work/sass-compile.txt" 2>&1
      for cubin in "$work"/cubins/*.cubin; do
        cuobjdump -sass "$cubin" >"${cubin%.cubin}.sass" 2>&1
        printf '%-150s HGMMA %5d  QGMMA %5d  STL %3d  LDL %3d\n' "$(basename "$cubin" .cubin)" \
          "$(grep -c 'HGMMA' "${cubin%.cubin}.sass")" "$(grep -c 'QGMMA' "${cubin%.cubin}.sass")" \
          "$(grep -c 'STL' "${cubin%.cubin}.sass")" "$(grep -c 'LDL' "${cubin%.cubin}.sass")"
      done | tee "$work/sass-summary.txt"
      rm -f "$work"/cubins/*.cubin
      ;;
    sm90-explore)
      # Configurations side by side with the vendor on a few shapes (warm, short): where the kernel stands.
      IFS=' ' read -r -a explore_arms <<<"${SM90_ARMS:-sm90 cublaslt}"
      timeout "${BENCH_TIMEOUT:-300}" "$bin" bench --suite "suites/${SM90_SUITE:-square}.txt" \
        --only "${SM90_ONLY:-sq2048,sq4096,sq8192}" \
        --dtypes "${SM90_DTYPES:-bf16}" --layouts "${SM90_LAYOUTS:-TN}" --arms "$(IFS=,; echo "${explore_arms[*]}")" \
        --baseline cublaslt --warmup-s 3 --repeats 3 -o "$work/sm90-explore${SM90_TAG:-}.json" --overwrite \
        2>"$work/sm90-explore${SM90_TAG:-}.log" | tee "$work/sm90-explore${SM90_TAG:-}-table.txt" | tail -n 40
      ;;
    tests)
      ctest --test-dir build/release -L gpu --output-on-failure 2>&1 | tee "$work/gpu-tests.log" | tail -n 30
      ;;
    sanitize)
      for tool in memcheck racecheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 3 build/release/tests/device_gpu_test \
          --gtest_filter='Reference.*:Operands.*' >"$work/sanitizer-$tool.log" 2>&1
        echo "compute-sanitizer $tool: exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$work/sanitizer-$tool.log") clean summaries)"
        tail -n 3 "$work/sanitizer-$tool.log"
      done
      ;;
    protocol-decode)
      timeout "${BENCH_TIMEOUT:-540}" "$bin" bench --protocol protocols/decode-m1-vendor.toml -o "$work/$step.json" \
        --overwrite 2>"$work/$step.log" | tee "$work/$step-table.txt" | tail -n 12
      ;;
    peers-smoke)
      python3 bench/peers/run.py --suite suites/llm24.txt --only sqS,d4k_qkv_dec --dtypes bf16 --layouts TN,NN \
        --warmup-s 2 --repeats 3 -o "$work/$step.json" 2>&1 | tail -n 8
      ;;
    peers-torch)
      timeout "${BENCH_TIMEOUT:-540}" python3 bench/peers/run.py --suite suites/square.txt --dtypes bf16 \
        --layouts TN,NN --arms torch -o "$work/peers-square-torch.json" 2>"$work/peers-square-torch.log" | tail -n 2
      timeout "${BENCH_TIMEOUT:-540}" python3 bench/peers/run.py --suite suites/llm24.txt --dtypes bf16,fp16 \
        --layouts TN --cold --arms torch -o "$work/peers-llm24-torch.json" 2>"$work/peers-llm24-torch.log" | tail -n 2
      ;;
    crosscheck-square)
      # tilewise's vendor arms and the peers on the same machine, back to back: the closest runs there can be.
      timeout "${BENCH_TIMEOUT:-540}" "$bin" bench --suite suites/square.txt --dtypes bf16 --layouts TN,NN \
        -o "$work/square-bf16-warm.json" 2>"$work/square-bf16-warm.log" | tee "$work/square-bf16-warm-table.txt" | tail -n 3
      timeout "${BENCH_TIMEOUT:-540}" python3 bench/peers/run.py --suite suites/square.txt --dtypes bf16 \
        --layouts TN,NN --arms torch,triton -o "$work/peers-square.json" 2>"$work/peers-square.log" | tail -n 2
      ;;
    peers-triton)
      timeout "${BENCH_TIMEOUT:-540}" python3 bench/peers/run.py --suite suites/square.txt \
        --only "${TRITON_ONLY:-sq512,sq1024,sq2048,sq4096}" --dtypes bf16 --layouts "${TRITON_LAYOUTS:-TN}" --arms torch,triton \
        -o "$work/peers-square-triton.json" 2>"$work/peers-square-triton.log" | tail -n 2
      tail -n 6 "$work/peers-square-triton.log"
      ;;
    host-gpu-tests)
      # The GPU tests of the host code around the kernels (timing, the bench arms and the tuner's harness, selection,
      # the sm90 rule, stream-K and gemv launches), one binary at a time, each with its own log.
      for t in device_gpu_test bench_gpu_test select_gpu_test families_gpu_test; do
        filter='*'
        [ "$t" = families_gpu_test ] && filter='Sm90FirstRule.*:Sm90StreamK.*:Sm90Sanitized.*:Gemv*'
        timeout 300 "$tests/$t" --gtest_filter="$filter" >"$work/$t.log" 2>&1
        echo "$t: exit $? $(grep -E '^\[ *(FAILED|PASSED) ' "$work/$t.log" | tr '\n' ' ')"
      done
      ;;
    family-tests)
      # The gemv family's GPU tests, the sm90 first rule and sanitized set, then compute-sanitizer on gemv.
      timeout 100 "$tests/families_gpu_test" --gtest_filter='Gemv*:Sm90FirstRule.*:Sm90Sanitized.*' \
        2>&1 | tee "$work/family-gpu-tests.log" | grep -E "^\[ *(OK|FAILED|PASSED) " | tail -n 20
      timeout 70 compute-sanitizer --tool memcheck --error-exitcode 3 "$tests/families_gpu_test" \
        --gtest_filter='GemvGpu.EveryFormat*' >"$work/sanitizer-gemv-memcheck.log" 2>&1
      echo "compute-sanitizer memcheck (gemv): exit $?"; tail -n 2 "$work/sanitizer-gemv-memcheck.log"
      ;;
    sm90-sanitize)
      for tool in memcheck racecheck; do
        timeout 50 compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests/families_gpu_test" \
          --gtest_filter='Sm90Sanitized.*' >"$work/sanitizer-sm90-$tool.log" 2>&1
        echo "compute-sanitizer $tool (sm90): exit $?"; tail -n 2 "$work/sanitizer-sm90-$tool.log"
      done
      ;;
    square-sm90)
      timeout "${BENCH_TIMEOUT:-560}" "$bin" bench --suite suites/square.txt --dtypes bf16,fp16,fp8 --layouts TN,NN \
        --arms sm90,cublaslt,cublaslt-default --baseline cublaslt -o "$work/square-sm90-warm.json" \
        2>"$work/square-sm90-warm.log" | tee "$work/square-sm90-warm-table.txt" | tail -n 8
      ;;
    decode-gemv)
      timeout 100 "$bin" bench --protocol protocols/decode-gemv.toml -o "$work/protocol-decode-gemv.json" \
        2>"$work/protocol-decode-gemv.log" | tee "$work/protocol-decode-gemv-table.txt" | tail -n 14
      timeout 240 "$bin" bench --suite suites/decode.txt --dtypes bf16,fp8 --layouts TN --cold \
        --arms gemv:bf16,gemv:fp16,gemv:int8,gemv:int4,gemv:fp8,cublaslt,cublaslt-default --baseline cublaslt \
        -o "$work/decode-gemv-cold.json" 2>"$work/decode-gemv-cold.log" | tee "$work/decode-gemv-cold-table.txt" | tail -n 8
      timeout 90 "$bin" bench --suite suites/llm24.txt --only "${M16_SHAPES:-d4k_qkv_dec,d4k_ffn_dec,d4k_down_dec,d8k_qkv_dec,sn_16_dec,sn_32_dec,sn_128_dec}" \
        --dtypes bf16 --layouts TN --cold --arms gemv:bf16,gemv:int8,gemv:int4,gemv:fp8,cublaslt,cublaslt-default \
        --baseline cublaslt -o "$work/llm24-m16-gemv-cold.json" 2>"$work/llm24-m16-gemv-cold.log" \
        | tee "$work/llm24-m16-gemv-cold-table.txt" | tail -n 8
      ;;
    peers-gpus)
      # One job a GPU, all at once: PEER_JOBS="name|problem args;name|problem args", each tilewise's cublaslt-default
      # and then the peers on its own GPU (scripts/peers-closest.sh), within PEER_SECONDS.
      # Each job on its own share of the cores: a job's Triton compiles on another job's cores delayed that job's
      # eager torch.mm launches until the checker refused its host loop.
      IFS=';' read -r -a jobs <<<"${PEER_JOBS:?set PEER_JOBS=\"name|problem args;...\"}"
      share=$(($(nproc) / ${#jobs[@]}))
      for i in "${!jobs[@]}"; do
        read -r -a job_args <<<"${jobs[$i]#*|}"
        CUDA_VISIBLE_DEVICES=$i taskset -c $((i * share))-$(((i + 1) * share - 1)) scripts/peers-closest.sh "$work" "${jobs[$i]%%|*}" "${PEER_SECONDS:-540}" \
          "${job_args[@]}" >"$work/${jobs[$i]%%|*}.out" 2>&1 &
      done
      wait
      tail -n 3 "$work"/*.out; grep -h "skipped past" "$work"/*-peers.log | wc -l
      ;;
    gemv-engines)
      # Both gemv engines under their GPU tests and compute-sanitizer, then side by side with their settings (the
      # default, each format on the other engine, PDL) on the two shapes issue 4 names, cold.
      timeout 150 "$tests/families_gpu_test" --gtest_filter='GemvGpu.*' 2>&1 | tee "$work/gemv-gpu-tests.log" \
        | grep -E "^\[ *(OK|FAILED|PASSED) " | tail -n 12
      for tool in memcheck racecheck; do
        timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests/families_gpu_test" \
          --gtest_filter='GemvGpu.EveryFormat*' >"$work/sanitizer-gemv-engines-$tool.log" 2>&1
        echo "compute-sanitizer $tool (gemv, both engines): exit $?"; tail -n 2 "$work/sanitizer-gemv-engines-$tool.log"
      done
      timeout 150 "$bin" bench --suite suites/decode.txt --only dec_m1_12288,dec_m16_12288 --dtypes bf16,fp8 --layouts TN \
        --cold --arms "${GEMV_ARMS:-gemv:bf16,gemv:bf16@engine=mma,gemv:bf16@pdl=1,gemv:int8,gemv:int8@engine=mma,gemv:int8@engine=mma;pdl=1,gemv:int4,gemv:int4@engine=mma,gemv:int4@engine=mma;pdl=1,gemv:fp8,cublaslt}" \
        --baseline cublaslt -o "$work/decode-gemv-engines.json" 2>"$work/decode-gemv-engines.log" \
        | tee "$work/decode-gemv-engines-table.txt" | tail -n 12
      ;;
    gemv-bulk-sanitize)
      # The bulk engine's schedule edges under compute-sanitizer (racecheck follows its barriers and bulk copies).
      for tool in memcheck racecheck; do
        timeout "${SANITIZE_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests/families_gpu_test" \
          --gtest_filter='GemvGpu.BulkSanitizedSet' >"$work/sanitizer-gemv-bulk-$tool.log" 2>&1
        echo "compute-sanitizer $tool (gemv bulk): exit $?"; tail -n 2 "$work/sanitizer-gemv-bulk-$tool.log"
      done
      ;;
    gemv-bulk)
      # The bulk engine beside the register-streaming engines and cuBLASLt with its settings (bf16 x), cold; then
      # fp8 weights on the fp8 problem.
      timeout 400 "$bin" bench --suite suites/decode.txt --only "${GEMV_ONLY:-dec_m1_12288,dec_m16_12288}" --dtypes bf16 --layouts TN \
        --cold --arms "${GEMV_ARMS}" --baseline cublaslt -o "$work/decode-gemv-bulk.json" 2>"$work/decode-gemv-bulk.log" \
        | tee "$work/decode-gemv-bulk-table.txt" | tail -n 40
      timeout 100 "$bin" bench --suite suites/decode.txt --only dec_m1_12288,dec_m16_12288 --dtypes fp8 --layouts TN \
        --cold --arms "${GEMV_FP8_ARMS}" --baseline cublaslt -o "$work/decode-gemv-bulk-fp8.json" \
        2>"$work/decode-gemv-bulk-fp8.log" | tee "$work/decode-gemv-bulk-fp8-table.txt" | tail -n 14
      ;;
    sm90-sweep)
      # Every configuration the first rule chooses among, timed side by side per problem (warm): the receipt
      # `tilewise fit` fits the rule's constants to.
      timeout "${BENCH_TIMEOUT:-560}" "$bin" bench --suite suites/llm24.txt --suite suites/square.txt --dtypes bf16 \
        --layouts TN --arms sm90:sweep,sm90,cublaslt --baseline cublaslt -o "$work/sm90-sweep-warm.json" \
        2>"$work/sm90-sweep-warm.log" | tee "$work/sm90-sweep-warm-table.txt" | tail -n 6
      "$bin" fit "$work/sm90-sweep-warm.json" | tee "$work/sm90-fit.txt" | tail -n 4
      ;;
    sm90-one-consumer-widths)
      # One consumer's widths fitted to whole waves (72-120 wide, 64 rows; unrated in the rule), timed warm beside
      # every other configuration the first rule chooses among on suites/sm90-one-consumer-widths.txt: the receipt
      # `tilewise fit` rates them from, with results/sm90-sweep-fitted-warm.json.
      timeout "${BENCH_TIMEOUT:-300}" "$bin" bench --suite suites/sm90-one-consumer-widths.txt --dtypes bf16 \
        --layouts TN --arms sm90:sweep,sm90,cublaslt --baseline cublaslt -o "$work/sm90-one-consumer-widths-warm.json" \
        2>"$work/sm90-one-consumer-widths-warm.log" | tee "$work/sm90-one-consumer-widths-table.txt" | tail -n 12
      "$bin" fit --hold-swapped results/sm90-sweep-fitted-warm.json "$work/sm90-one-consumer-widths-warm.json" \
        | tee "$work/sm90-one-consumer-widths-fit.txt" | tail -n 4
      ;;
    sm90-one-consumer-judge)
      # Held out from that fit: every configuration the first rule chooses among on JUDGE_SUITE (default
      # suites/sm90-one-consumer-widths-judge.txt; suites/sm90-one-consumer-widths-fresh.txt is the next round's), warm,
      # beside both cuBLASLt arms. The rule's choice under each set of constants is read off these timings (`tilewise
      # fit`'s current column; docs/notes/2026-12-07-sm90-one-consumer-rate.md).
      judge=${JUDGE_SUITE:-suites/sm90-one-consumer-widths-judge.txt}
      name=$(basename "$judge" .txt)
      timeout "${BENCH_TIMEOUT:-300}" "$bin" bench --suite "$judge" --arms sm90:sweep,sm90,cublaslt-default,cublaslt \
        --baseline cublaslt -o "$work/$name-warm.json" 2>"$work/$name-warm.log" | tee "$work/$name-table.txt" \
        | tail -n 20
      "$bin" fit "$work/$name-warm.json" | tee "$work/$name-fit.txt" | tail -n 4
      ;;
    sm90-gaps)
      # Issue 30's gap cases (suites/sm90-gaps.txt; docs/notes/2026-12-03-sm90-sweep-classes.md): every configuration
      # the first rule chooses among and the swapped rungs it has not rated yet, timed cold beside both cuBLASLt arms,
      # built first in parallel; then the rule refitted to them and the warm llm24/square sweep together.
      "$bin" compile --suite suites/sm90-gaps.txt --sweep >"$work/sm90-gaps-compile.txt" 2>&1
      tail -n 1 "$work/sm90-gaps-compile.txt"
      timeout "${BENCH_TIMEOUT:-560}" "$bin" bench --suite suites/sm90-gaps.txt --cold \
        --arms sm90:sweep,sm90,cublaslt-default,cublaslt --baseline cublaslt-default -o "$work/sm90-gaps-cold.json" \
        2>"$work/sm90-gaps-cold.log" | tee "$work/sm90-gaps-cold-table.txt" | tail -n 16
      # The committed warm sweep predates the swapped rungs: its ten problems that take them are re-timed, and the fit
      # takes each problem from the last receipt that has it.
      timeout "${BENCH_TIMEOUT:-560}" "$bin" bench --suite suites/llm24.txt --suite suites/square.txt --dtypes bf16 \
        --layouts TN --only sqS,tallM,fatK,sn_16_pf,sn_64_pf,sn_256_pf,sq256,sq512,sq768,sq1024 \
        --arms sm90:sweep,sm90,cublaslt --baseline cublaslt -o "$work/sm90-swapped-warm.json" \
        2>"$work/sm90-swapped-warm.log" | tail -n 12
      "$bin" fit results/sm90-sweep-warm.json "$work/sm90-swapped-warm.json" "$work/sm90-gaps-cold.json" \
        | tee "$work/sm90-gaps-fit.txt" | tail -n 7
      ;;
    kernel-tests)
      # A kernel change's GPU tests before its A/B (scripts/gpu-tests.sh): the families tests matching KERNEL_TESTS (a
      # gtest filter), each in a process of its own, 12 at once, with TILEWISE_KERNELS_DIR at NEW_KERNELS (a kernels/
      # folder), then memcheck and racecheck on SANITIZED_TESTS (default Sm90Sanitized.*).
      TILEWISE_KERNELS_DIR=${NEW_KERNELS:?NEW_KERNELS names the kernels/ folder to test} OUT=$work/kernel-tests \
        ONLY=families JOBS=12 TESTS_S=150 FILTER=${KERNEL_TESTS:?KERNEL_TESTS is a gtest filter} \
        SANITIZERS="memcheck racecheck" SANITIZE_S=120 SANITIZE_FILTER=${SANITIZED_TESTS:-Sm90Sanitized.*} \
        scripts/gpu-tests.sh "$tests" no-python | tail -n 12
      ;;
    copy-alone)
      # linear on the tensor-core copy alone (docs/notes/2026-12-07-linear-copy-alone.md): its C++ tests, memcheck on
      # them and on the gemv that reads the copy, and the Python package's GPU tests (TILEWISE_LIBRARY names the C ABI
      # library, default beside the binary's build).
      timeout 200 "$tests/select_gpu_test" --gtest_filter='QuantizedLinear.TheTensorCoreCopyAlone*:QuantizedLinear.PastSixteen*' \
        >"$work/copy-alone-tests.log" 2>&1
      echo "copy-alone tests: exit $? $(grep -E '^\[  (PASSED|FAILED) ' "$work/copy-alone-tests.log" | tr '\n' ' ')"
      timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$tests/select_gpu_test" \
        --gtest_filter='QuantizedLinear.TheTensorCoreCopyAlone*' >"$work/copy-alone-memcheck.log" 2>&1
      echo "memcheck: exit $? $(grep 'ERROR SUMMARY' "$work/copy-alone-memcheck.log" | tail -n 1)"
      timeout 200 compute-sanitizer --tool memcheck --kernel-regex kns=gemv_mma_order --error-exitcode 3 \
        "$tests/families_gpu_test" --gtest_filter='GemvGpu.TheMmaOrder*' >"$work/order-memcheck.log" 2>&1
      echo "memcheck, the gemv on the copy: exit $? $(grep 'ERROR SUMMARY' "$work/order-memcheck.log" | tail -n 1)"
      binary=$(realpath "$bin")
      (cd tests/python && PYTHONPATH=$OLDPWD/python TILEWISE_BIN=$binary \
        TILEWISE_LIBRARY=$(realpath "${TILEWISE_LIBRARY:-$(dirname "$binary")/libtilewise_c.so}") \
        timeout 200 python3 -m unittest test_gpu >"$work/copy-alone-python.log" 2>&1)
      echo "Python GPU tests: exit $? $(tail -n 1 "$work/copy-alone-python.log")"
      ;;
    order-persistent)
      # The mma-order gemv's persistent grid (docs/notes/2026-12-07-gemv-order-persistent.md): its GPU tests, the
      # three sanitizers on them, then the settings timed there (narrow CTAs, persistent grids) beside rows of K, the
      # sm90 kernel on the copy and both cuBLASLt arms, nn.Linear's orientation, cold.
      timeout 200 "$tests/families_gpu_test" --gtest_filter='GemvGpu.TheMmaOrder*:GemvGpu.APersistentGrid*' \
        >"$work/order-persistent-tests.log" 2>&1
      echo "tests: exit $? $(grep -E '^\[  (PASSED|FAILED) ' "$work/order-persistent-tests.log" | tr '\n' ' ')"
      for tool in memcheck racecheck synccheck; do
        filter='GemvGpu.TheMmaOrderPersistentSanitizedSet'
        [ "$tool" = memcheck ] && filter='GemvGpu.TheMmaOrderPersistent*'
        timeout 120 compute-sanitizer --tool "$tool" --kernel-regex kns=gemv_mma_order --error-exitcode 3 \
          "$tests/families_gpu_test" --gtest_filter="$filter" >"$work/order-persistent-$tool.log" 2>&1
        echo "$tool: exit $? $(grep 'ERROR SUMMARY' "$work/order-persistent-$tool.log" | tail -n 1)"
      done
      o='gemv:int4@engine=mma-order'
      arms="cublaslt,cublaslt-default,gemv:int4,$o,sm90:int4,$o;threads=256;ksplit=8;unroll=2,$o;threads=512;ksplit=16;unroll=2"
      arms="$arms,$o;threads=256;ksplit=8;unroll=2;persistent=1,$o;threads=512;ksplit=8;unroll=2;persistent=1"
      arms="$arms,$o;threads=512;ksplit=16;unroll=2;persistent=1,$o;threads=512;ksplit=8;unroll=4;persistent=1"
      timeout "${BENCH_TIMEOUT:-260}" "$bin" bench --suite suites/quant-order-tokens-linear.txt --dtypes bf16 --layouts TN \
        --cold --repeats 5 --baseline cublaslt --arms "$arms" -o "$work/order-persistent.json" \
        2>"$work/order-persistent.log" | tee "$work/order-persistent-table.txt" | tail -n 70
      ;;
    order-persistent-judge)
      # The mma-order engine's persistent default on shapes it was not fitted on (docs/notes/2026-12-07-gemv-order-
      # persistent.md, "Judge"), timed alone first; then the GPU tests its default runs in and memcheck on them (run
      # copy-alone for the Python package's tests).
      timeout "${BENCH_TIMEOUT:-150}" "$bin" bench --suite suites/quant-order-persistent-judge-linear.txt --dtypes bf16 \
        --layouts TN --cold --repeats 5 --baseline cublaslt \
        --arms "cublaslt,cublaslt-default,gemv:int4,gemv:int4@engine=mma-order,sm90:int4" \
        -o "$work/order-persistent-judge.json" 2>"$work/order-persistent-judge.log" \
        | tee "$work/order-persistent-judge-table.txt" | tail -n 30
      timeout 150 "$tests/families_gpu_test" --gtest_filter='GemvGpu.TheMmaOrder*:GemvGpu.EveryEngine*' \
        >"$work/order-default-tests.log" 2>&1
      echo "tests: exit $? $(grep -E '^\[  (PASSED|FAILED) ' "$work/order-default-tests.log" | tr '\n' ' ')"
      timeout 150 compute-sanitizer --tool memcheck --kernel-regex kns=gemv_mma_order --error-exitcode 3 \
        "$tests/families_gpu_test" --gtest_filter='GemvGpu.TheMmaOrderEngineMatches*' >"$work/order-default-memcheck.log" 2>&1
      echo "memcheck: exit $? $(grep 'ERROR SUMMARY' "$work/order-default-memcheck.log" | tail -n 1)"
      ;;
    old-kernels)
      # The tool's own kernel sources or NEW_KERNELS ("new") against OLD_KERNELS ("old"), each a kernels/ folder
      # (e.g. extracted from `git archive REV kernels`, carried), alternately, each order once so that a drift over
      # the run cancels: the packed int4 arm at 16-128 tokens cold (PACKED_SUITE, default
      # suites/quant-small-batch.txt; PACKED_ONLY its problems, PACKED_ARMS the packed arms), with SQUARES=1 the
      # plain kernel's first rule on the squares up to 4096 warm,
      # and with GEMV=1 (then PACKED=0 skips the packed arm) the decode GEMV's default for each weight format at 1-16
      # tokens, cold (SQUARE_ONLY and SQUARE_ARMS choose the squares and arms: fixed sm90@<config> arms compare one
      # configuration's kernels). Each receipt names the sources it compiled (tool.kernel_sources, kernel_sources_dir). Runs
      # behind docs/notes/2026-12-04-packed-shared-loads.md, docs/notes/2026-12-04-packed-scale-sums.md and
      # docs/notes/2026-12-04-gemv-int4-t1-sass.md ("The offset").
      # PASSES=n runs both orders n times (rounds 1..2n), where the card's clocks drift between runs.
      old=${OLD_KERNELS:?OLD_KERNELS names the kernels/ folder to compare against}
      round=0
      for order in $(for ((pass = 0; pass < ${PASSES:-1}; ++pass)); do echo new-old old-new; done); do
        round=$((round + 1))
        order=${order/-/ }
        for variant in $order; do
          dir=${NEW_KERNELS:-}
          [ "$variant" = old ] && dir=$old
          [ "${PACKED:-1}" = 1 ] && TILEWISE_KERNELS_DIR=$dir timeout 150 "$bin" bench \
            --suite "${PACKED_SUITE:-suites/quant-small-batch.txt}" ${PACKED_ONLY:+--only "$PACKED_ONLY"} \
            --arms "cublaslt,${PACKED_ARMS:-sm90:int4}" --baseline cublaslt --cold \
            -o "$work/packed-$variant-$round.json" 2>"$work/packed-$variant-$round.log" | tail -n 2
          [ "${GEMV:-0}" = 1 ] && TILEWISE_KERNELS_DIR=$dir timeout 150 "$bin" bench --suite suites/decode.txt \
            --suite suites/quant-tokens.txt \
            --only dec_m1_12288,dec_m4_12288,dec_m16_12288,dec_m1_down,dec_m1_8k,qt_t16_down,qt_t16_8k \
            --arms gemv:int4,gemv:int8,gemv:fp8,gemv:bf16,cublaslt,cublaslt-default --baseline cublaslt --cold \
            -o "$work/gemv-$variant-$round.json" 2>"$work/gemv-$variant-$round.log" | tail -n 2
          [ "${SQUARES:-0}" = 1 ] && TILEWISE_KERNELS_DIR=$dir timeout 150 "$bin" bench --suite suites/square.txt \
            --only "${SQUARE_ONLY:-sq256,sq512,sq768,sq1024,sq1536,sq2048,sq4096}" --dtypes bf16 --layouts TN \
            --arms "${SQUARE_ARMS:-cublaslt,sm90}" --baseline cublaslt -o "$work/square-$variant-$round.json" \
            2>"$work/square-$variant-$round.log" | tail -n 2
        done
      done
      ;;
    gemv-prefetch)
      # Preregistered: the gemv mma engine's next-step loads against its default, int4 g128 and fp8 weights, cold.
      timeout 200 "$bin" bench --protocol protocols/decode-gemv-prefetch.toml -o "$work/protocol-decode-gemv-prefetch.json" \
        2>"$work/protocol-decode-gemv-prefetch.log" | tee "$work/protocol-decode-gemv-prefetch-table.txt" | tail -n 16
      ;;
    tune-llm24)
      # Issue 5's campaign for TUNE_FAMILY (cublaslt, sm90 or gemv) over llm24's cases (gemv: the 16 TN bf16 and fp16
      # ones with M = 16; the tuner leaves out what a family cannot run), continued from results/tune/ in
      # two halves of about equal work (one campaign file each; the shapes of each depend on the family): on two GPUs
      # side by side within TUNE_S, on one in turn with half of it each. TUNE_HALF=a or b runs that half alone on the
      # GPU and cores the caller gave. The campaigns (commit them back into results/tune/), their report and database
      # come back.
      family=${TUNE_FAMILY:-cublaslt}
      start=$(date +%s) limit=${TUNE_S:-540}
      # cuBLASLt's time goes into timing (large prefill shapes dominate), sm90's into compiling (every shape alike).
      case "$family" in
        cublaslt) a=sqS,sqL,tallM,wideN,fatK,thinK,d4k_qkv_dec,d4k_ffn_dec,d4k_down_dec,d8k_qkv_dec,sn_16_dec,sn_32_dec
                  a+=,sn_128_dec,d4k_qkv_pf,d4k_ffn_pf,d4k_down_pf,d8k_qkv_pf,moe_up_pf,moe_down_pf
                  b=d8k_ffn_pf,d8k_down_pf,sn_16_pf,sn_64_pf,sn_256_pf ;;
        gemv) a=sn_16_dec,sn_32_dec,sn_128_dec,d4k_qkv_dec
              b=d4k_ffn_dec,d4k_down_dec,d8k_qkv_dec ;;
        *) a=sqS,sqL,tallM,wideN,fatK,thinK,d4k_qkv_dec,d4k_ffn_dec,d4k_down_dec,d8k_qkv_dec,sn_16_dec,sn_32_dec,sn_128_dec
           b=d4k_qkv_pf,d4k_ffn_pf,d4k_down_pf,d8k_qkv_pf,d8k_ffn_pf,d8k_down_pf,moe_up_pf,moe_down_pf,sn_16_pf,sn_64_pf
           b+=,sn_256_pf ;;
      esac
      halves=("$family-llm24|$a" "$family-llm24-b|$b")
      gpus=$(nvidia-smi -L | wc -l)
      ((gpus > 0)) || gpus=1
      share=$(($(nproc) / (gpus > 1 ? 2 : 1)))
      tune_half() {  # index, the second after the start it must end by, and the GPU and cores ("" keeps the caller's)
        local name=${halves[$1]%%|*} left=$((start + $2 - $(date +%s))) place=()
        [ -f "results/tune/$name-campaign.json" ] && cp "results/tune/$name-campaign.json" "$work/"
        if ((left < 30)); then echo "$name: not started, the deadline has passed"; return 0; fi
        [ -n "$3" ] && place=(env CUDA_VISIBLE_DEVICES="$3" taskset -c $(($3 * share))-$((($3 + 1) * share - 1)))
        "${place[@]}" timeout "$left" "$bin" tune --suite suites/llm24.txt --dtypes bf16,fp16,fp8 --layouts TN,NN \
          --family "$family" --repeats 5 --only "${halves[$1]#*|}" --campaign "$work/$name-campaign.json" \
          >/dev/null 2>"$work/$name.log"
        echo "$name: exit $? (124: stopped at its deadline, finished cases kept)"
      }
      case "${TUNE_HALF:-}" in
        a) tune_half 0 "$limit" "" ;;
        b) tune_half 1 "$limit" "" ;;
        *) if ((gpus > 1)); then tune_half 0 "$limit" 0 & tune_half 1 "$limit" 1 & wait
           else tune_half 0 $((limit / 2)) 0; tune_half 1 "$limit" 0; fi ;;
      esac
      "$bin" campaign "$work/$family"-llm24*-campaign.json --database "$work/$family-llm24-db.json" \
        | tee "$work/$family-llm24-contributions.txt"
      ;;
    decide-llm24)
      # Each family's tuned entry (results/tune/<family>-llm24-db.json) timed side by side on a part of llm24
      # (SELECTED_DTYPES, SELECTED_LAYOUTS) into results/llm24-decide-SELECTED_NAME.json, which selected-llm24's merge
      # then decides each problem's family by: the campaigns' own times come from runs apart and do not compare.
      name=llm24-decide-${SELECTED_NAME:-all}
      family_arms=selected:results/tune/cublaslt-llm24-db.json,selected:results/tune/sm90-llm24-db.json
      [ -f results/tune/gemv-llm24-db.json ] && family_arms+=,selected:results/tune/gemv-llm24-db.json
      timeout "${BENCH_TIMEOUT:-540}" "$bin" bench --suite suites/llm24.txt --dtypes "${SELECTED_DTYPES:-bf16,fp16,fp8}" \
        --layouts "${SELECTED_LAYOUTS:-TN,NN}" ${SELECTED_ONLY:+--only "$SELECTED_ONLY"} --arms "$family_arms" \
        --baseline selected:results/tune/cublaslt-llm24-db.json -o "results/$name.json" 2>"$work/$name.log" \
        | tee "$work/$name-table.txt" | tail -n 3
      cp "results/$name.json" "$work/"
      ;;
    selected-llm24)
      # The library API with the committed databases (SELECTED_DB, merged, and decided by results/llm24-decide-*.json
      # where there are any) against cublaslt-default on llm24's 120 cases, warm as the campaigns were timed;
      # SELECTED_DTYPES and SELECTED_LAYOUTS take a part of them, into the receipt SELECTED_NAME. SELECTED_PREFER
      # ("cublaslt:0.02") adds a second database, that family kept on wins under the margin, as an arm beside the first.
      read -r -a databases <<<"${SELECTED_DB:-$(echo results/tune/*-llm24-db.json)}"
      decide=()
      for r in results/llm24-decide-*.json; do [ -f "$r" ] && decide+=(--decide "$r"); done
      name=${SELECTED_NAME:-llm24-selected}
      db_out=${SELECTED_DB_OUT:-results/tune/llm24-db.json}
      # Merged where it is committed, so the receipt's arm names a file others can read.
      "$bin" db merge "${databases[@]}" "${decide[@]}" -o "$db_out" --overwrite >"$work/$name-merge.txt" || continue
      cp "$db_out" "$work/"
      arms=selected:$db_out
      if [ -n "${SELECTED_PREFER:-}" ]; then
        preferred=${db_out%.json}-prefer-${SELECTED_PREFER%%:*}.json
        "$bin" db merge "${databases[@]}" "${decide[@]}" --prefer "${SELECTED_PREFER%%:*}" \
          --margin "${SELECTED_PREFER##*:}" -o "$preferred" --overwrite >>"$work/$name-merge.txt" || continue
        cp "$preferred" "$work/"
        arms+=,selected:$preferred
      fi
      timeout "${BENCH_TIMEOUT:-540}" "$bin" bench --suite suites/llm24.txt --dtypes "${SELECTED_DTYPES:-bf16,fp16,fp8}" \
        --layouts "${SELECTED_LAYOUTS:-TN,NN}" --arms "$arms,cublaslt-default" \
        --baseline cublaslt-default -o "$work/$name.json" 2>"$work/$name.log" | tee "$work/$name-table.txt" | tail -n 5
      ;;
    grid-vs-descent)
      # The capped one-shot grid and the descent on the same 12 cases (fresh campaigns, one after the other): final
      # latency and wall time of each, case by case (`tilewise campaign --grid`).
      for mode in descent grid; do
        timeout "${GRID_S:-260}" "$bin" tune --suite suites/llm24.txt --only sqS,sqL,thinK,fatK,d4k_qkv_dec,sn_16_pf \
          --dtypes bf16 --layouts TN,NN --family cublaslt --repeats 5 --mode "$mode" --grid-cap "${GRID_CAP:-400}" \
          --campaign "$work/grid-vs-descent-$mode.json" >/dev/null 2>"$work/grid-vs-descent-$mode.log"
        echo "$mode: exit $?"
      done
      "$bin" campaign "$work/grid-vs-descent-descent.json" --grid "$work/grid-vs-descent-grid.json" \
        | tee "$work/grid-vs-descent.txt"
      ;;
    issue7)
      # Issue 7: its named shapes (llm24's and the small squares; sq512 is sqS) tuned for sm90, bf16 and fp16 TN,
      # within ISSUE7_TUNE_S (a whole campaign takes about 500 s: continue it in a second round with ISSUE7_CAMPAIGN,
      # the campaign file the first returned; 0: no tuning, the receipts only), ISSUE7_ONLY a subset of them (a new
      # campaign, ISSUE7_NAME, for shapes to tune again after the space grew); then the database's entries against
      # cublaslt on the llm24 shapes (cold) and the small squares (warm and cold), each arm's graph-replay and
      # host-loop times in the receipts. ISSUE7_COLD_ONLY tunes those squares cold into results/tune/sm90-issue7-cold-*
      # instead (the cold receipts time the overlaid database below beside the warm one). ISSUE7_START: the sm90 configuration the
      # descent starts from instead of the first rule (tune --start; with ISSUE7_ONLY the shapes it is for).
      named=sqS,sqL,fatK,thinK,sn_16_pf,sn_64_pf,sn_256_pf,d4k_qkv_dec,d4k_ffn_dec,d4k_down_dec,d8k_qkv_dec,sn_16_dec,sn_32_dec,sn_128_dec
      campaign="$work/${ISSUE7_NAME:-sm90-issue7-campaign}.json"
      [ -n "${ISSUE7_CAMPAIGN:-}" ] && cp "$ISSUE7_CAMPAIGN" "$campaign"
      if [ -n "${ISSUE7_COLD_ONLY:-}" ]; then
        timeout "${ISSUE7_TUNE_S:-150}" "$bin" tune --suite suites/square.txt --only "$ISSUE7_COLD_ONLY" --dtypes bf16,fp16 \
          --layouts TN --family sm90 --repeats 5 --cold --campaign "$work/sm90-issue7-cold-campaign.json" \
          >/dev/null 2>"$work/tune-sm90-issue7-cold.log"
        echo "tune cold: exit $? (124: stopped at its deadline, finished cases kept)"
        "$bin" campaign "$work/sm90-issue7-cold-campaign.json" --database results/tune/sm90-issue7-cold-db.json \
          --overwrite | tail -n 4
        cp "$work/sm90-issue7-cold-campaign.json" results/tune/sm90-issue7-cold-db.json "$work/"
      elif [ "${ISSUE7_TUNE_S:-300}" != 0 ]; then
        timeout "${ISSUE7_TUNE_S:-300}" "$bin" tune --suite suites/llm24.txt --suite suites/square.txt \
          --only "${ISSUE7_ONLY:-$named,sq256,sq768,sq1024,sq1536}" --dtypes bf16,fp16 --layouts TN --family sm90 \
          --repeats 5 ${ISSUE7_START:+--start "$ISSUE7_START"} --campaign "$campaign" >/dev/null 2>"$work/tune-sm90-issue7.log"
        echo "tune: exit $? (124: stopped at its deadline, finished cases kept)"
        # Merged into the database where it is committed (the faster entry of each problem stays), so the
        # receipts' arm names a file others can read and the earlier campaigns' entries are kept.
        "$bin" campaign "$campaign" --database "$work/campaign-db.json" | tail -n 8
        # (an output never replaces an input: merged beside, then copied over)
        "$bin" db merge results/tune/sm90-issue7-db.json "$work/campaign-db.json" -o "$work/merged-db.json" &&
          cp "$work/merged-db.json" results/tune/sm90-issue7-db.json
        cp results/tune/sm90-issue7-db.json "$work/"
      fi
      # The database for cold runs: the warm one with every entry tuned cold in place of its own (times measured
      # warm and cold do not compare, so db merge --overlay, not the faster of the two): sq768 and sq1024, and sn_64_pf
      # tuned cold with swap held (results/logs/issue7-sn64-pingpong/NOTES.md).
      "$bin" db merge results/tune/sm90-issue7-db.json --overlay results/tune/sm90-issue7-cold-db.json \
        --overlay results/tune/sm90-issue7-sn64-cold-hold-db.json --overlay results/tune/sm90-issue7-sq768-cold-db.json \
        -o results/tune/sm90-issue7-cold-all-db.json --overwrite
      cp results/tune/sm90-issue7-cold-all-db.json "$work/"
      warm_arm=selected:results/tune/sm90-issue7-db.json cold_arm=selected:results/tune/sm90-issue7-cold-all-db.json
      timeout 265 "$bin" bench --suite suites/llm24.txt --only "$named" --dtypes bf16,fp16 --layouts TN --cold \
        --arms "$cold_arm,$warm_arm,cublaslt" --baseline cublaslt -o "$work/issue7-named-cold.json" \
        2>"$work/issue7-named-cold.log" | tee "$work/issue7-named-cold-table.txt" | tail -n 3
      for mode in warm cold; do
        mode_arms=$warm_arm,cublaslt
        [ $mode = cold ] && mode_arms=$cold_arm,$mode_arms
        timeout 120 "$bin" bench --suite suites/square.txt --only sq256,sq512,sq768,sq1024,sq1536 --dtypes bf16,fp16 \
          --layouts TN --$mode --arms "$mode_arms" --baseline cublaslt -o "$work/issue7-small-squares-$mode.json" \
          2>"$work/issue7-small-squares-$mode.log" | tee "$work/issue7-small-squares-$mode-table.txt" | tail -n 2
      done
      ;;
    kscan-stride)
      # k-loop stagger: the power-of-two K of the K scan with every leading dimension a power of two, then padded by
      # 64 elements (the same work, only the row stride differs), each run against its own cublaslt.
      for pad in 0 64; do
        timeout 105 "$bin" bench --suite suites/kscan.txt --only ks1024,ks2048,ks4096 --dtypes bf16 --layouts TN \
          --arms sm90,cublaslt --baseline cublaslt --pad $pad -o "$work/kscan-pow2-pad$pad.json" \
          2>"$work/kscan-pow2-pad$pad.log" | tee "$work/kscan-pow2-pad$pad-table.txt" | tail -n 5
      done
      ;;
    crosscheck-torch)
      # tilewise's vendor arms and torch.mm back to back on one machine: the closest runs there can be.
      timeout 250 "$bin" bench --suite suites/square.txt --dtypes bf16 --layouts TN,NN \
        -o "$work/square-bf16-warm.json" 2>"$work/square-bf16-warm.log" | tee "$work/square-bf16-warm-table.txt" | tail -n 3
      timeout 250 python3 bench/peers/run.py --suite suites/square.txt --dtypes bf16 \
        --layouts TN,NN --arms torch -o "$work/peers-square-torch.json" 2>"$work/peers-square-torch.log" | tail -n 2
      ;;
    square|decode|llm24)
      case "$step" in
        square) args=(--suite suites/square.txt --dtypes bf16,fp16,fp8 --layouts TN,NN) ;;
        decode) args=(--suite suites/decode.txt --dtypes bf16,fp16,fp8 --layouts TN --cold) ;;
        llm24) args=(--suite suites/llm24.txt --dtypes bf16,fp16,fp8 --layouts TN,NN --cold) ;;
      esac
      timeout "${BENCH_TIMEOUT:-540}" "$bin" bench "${args[@]}" -o "$work/$step.json" --overwrite 2>"$work/$step.log" | tee "$work/$step-table.txt" | tail -n 12
      ;;
    *) echo "unknown step $step" >&2 ;;
  esac
done
