#!/usr/bin/env bash
# Builds vknn and runs the whole test suite:
#   1. unit tests (cmocka, Vulkan validation layer on; the layer and
#      push-constant layout checks) and the conformance runner over
#      ../shared/nnapi-cts, every case, in every implemented mode (sync,
#      async, burst, fenced, threads, dynamic, quant-coupling, device-memory,
#      validation), checked against tests/cts/baseline.txt: a listed case that
#      does not pass fails the run; then the vendor extensions' cases of
#      tests/data in those modes and cache and ndk;
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer: all unit
#      tests, a sample of the conformance cases (every 32nd of the whole run,
#      and a case of every operation: vknn-cts --spread) and the extensions'
#      cases, with lavapipe kept loaded (scripts/keep_driver_loaded.sh);
#   3. under ThreadSanitizer: all unit tests and every 60th case (and a case
#      of every operation) through the concurrent paths (threads, async,
#      fenced, burst). tests/tsan.supp
#      silences only reports inside the uninstrumented Vulkan driver, loader
#      and validation layer;
#   4. the libFuzzer targets (clang, ASan + UBSan: scripts/fuzz.sh), a minute
#      each from a seed corpus of conformance models (fuzz_prepare,
#      fuzz_execute, fuzz_cache, fuzz_ndk).
# Stage 1 also runs the compilation-cache mode (cache: prepare with cache
# files, prepare from them on a second device, run) as a pass of its own over
# every 8th case: each case is prepared three times there (plain, with cache,
# from cache), so a full pass costs about as much as a full sync pass (every
# 4th case took 4.4 CPU-minutes: a full pass about 17, over 8 minutes of CI
# on 2 cores); every 5th case took 4.7 CPU-minutes on a loaded machine
# (about 2.5 minutes on 2 cores), and the cache code is the same for every
# model. Stage 1 runs the ndk mode too (each case through the NNAPI C API of
# libneuralnetworks.so) over every 30th case, as a pass of its own. The
# samples were widened (cache 5 -> 8, ndk 20 -> 30, ASan 12 -> 16, TSan
# 40 -> 50) when a whole run took 71 minutes; "stage NAME: S s" lines show
# each stage's share. A sample within each file still runs every file's first
# case (507 files), and under the sanitizers a case costs seconds: at 66
# minutes the ASan sample (821 cases, 25 minutes) and the TSan one (578, 14)
# became samples of the whole run (--spread), 409 and about 220 cases. The
# ASan sample went from every 24th to every 32nd case when whole runs took
# 51-56 minutes (CI 54 minutes; ASan conformance 11-12 of them).
# Ends with one line: "Total: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0; failed=0; skipped=0
modes=sync,async,burst,fenced,threads,dynamic,quant-coupling,device-memory,validation
# Every case listed there must pass in every stage that runs it (a change that
# makes cases pass adds them: vknn-cts --write-baseline tests/cts/baseline.txt).
baseline=$PWD/tests/cts/baseline.txt
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1

# Each stage prints its wall time ("stage NAME: S s"): CI must stay under an
# hour on 2 cores, and these lines show where it goes.
stage_start=$SECONDS
stage_done() { echo "stage $1: $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }

count() { passed=$((passed + ${1:-0})); failed=$((failed + ${2:-0})); skipped=$((skipped + ${3:-0})); }

# Configures (once) and builds a build directory; a failed build counts as a failure.
build() {
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ] && ! meson setup "$dir" -Dwerror=true "$@" > "$dir.setup.log" 2>&1; then
    cat "$dir.setup.log"; echo "$dir: configuration failed"; count 0 1 0; return 1
  fi
  ninja -C "$dir" > "$dir.build.log" 2>&1 || { tail -40 "$dir.build.log"; echo "$dir: build failed"; count 0 1 0; return 1; }
}

unit_tests() {
  local dir=$1 log=$1/unit-tests.log
  meson test -C "$dir" --print-errorlogs --num-processes 2 > "$log" 2>&1
  local rc=$? ok fail timeout skip
  grep -E '^ *[0-9]+/[0-9]+ ' "$log" | sed "s|^|$dir: |"
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log")
  fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$log")
  timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$log")
  skip=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$log")
  count "${ok:-0}" $(( ${fail:-0} + ${timeout:-0} )) "${skip:-0}"
  if [ "$rc" -ne 0 ]; then
    grep -vE '^ *[0-9]+/[0-9]+ ' "$log" | tail -60
    [ "${fail:-0}${timeout:-0}" = "00" ] && count 0 1 0
  fi
}

conformance() {
  local dir=$1 name=$2; shift 2
  local log=$dir/cts-$name.log
  # Options before the paths: vknn-cts takes whatever follows the first path as a path.
  "$dir/tests/vknn-cts" --json "$dir/cts-$name.json" "$@" > "$log" 2>&1
  local rc=$? line p f s
  grep -E '^FAILED |^REGRESSED |^baseline: ' "$log" | head -60
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
  s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
  echo "$dir conformance ($name): ${line:-no result}"
  count "${p:-0}" "${f:-0}" "${s:-0}"
  if [ -z "$line" ] || { [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; }; then
    tail -20 "$log"; echo "vknn-cts did not complete (exit $rc)"; count 0 1 0
  fi
}

if build build -Dbuildtype=debugoptimized; then
  stage_done build
  unit_tests build
  stage_done unit-tests
  conformance build all-modes --modes "$modes" --baseline "$baseline"
  grep -E '^[A-Z_0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$|^operation' build/cts-all-modes.log
  stage_done all-modes
  # The vendor extensions' cases (tests/data, a few seconds): every mode.
  conformance build extensions --modes "$modes,cache,ndk" --baseline "$baseline" tests/data
  stage_done extensions
  conformance build cache --modes cache --sample 8 --baseline "$baseline"
  stage_done cache
  # The device chooses one way of reading convolution operands (texel
  # buffers on lavapipe); the other way must pass too, and with it the
  # quantized matrix kernels' packed dot products (lavapipe has them but does
  # not call them accelerated, so the device leaves them off by itself). Every
  # float 3x3 stride-1 convolution with a constant filter runs as a Winograd
  # convolution there (AUTO keeps the small ones on the implicit product), and
  # the kernels use device-local copies of the inputs and outputs (io_copies,
  # the default on discrete GPUs); burst runs the imported (zero-copy) path
  # through them too.
  # Relaxed models keep float16 tensors there too, and the float16 kernels
  # compute in float16 (both the default on GPUs with shaderFloat16;
  # lavapipe measured slower with them and keeps float32). Float pointwise
  # layers run on the shared-memory tiles and global poolings as workgroup
  # reductions (kernel tuning's choices where GPUs measure them faster).
  conformance build storage-reads --modes sync,burst --operand-reads storage --integer-dot on \
    --winograd on --io-copies on --relaxed-float16 on --float16-arithmetic on \
    --subgroup-filter off --gemm-shared-tiles on --global-pool-reduction on --baseline "$baseline"
  conformance build extensions-storage-reads --modes sync --operand-reads storage \
    --io-copies on --baseline "$baseline" tests/data
  stage_done storage-reads
  # The relaxed cases in float16 with the device's own reads (texel buffers
  # here), sync and with outputs of unknown shape (about a minute).
  conformance build relaxed-float16 --modes sync,dynamic --relaxed-float16 on --filter '*relaxed*' \
    --baseline "$baseline"
  stage_done relaxed-float16
  # Intermediate tensors in the packed layout wherever their kernels take it
  # (AUTO leaves it to kernel tuning, off on lavapipe), sync and compiled per
  # execution with outputs of unknown shape (about a minute).
  conformance build packed-layout --modes sync,dynamic --packed-layout on --baseline "$baseline"
  stage_done packed-layout
  # The float16 kernels computing in float16 with texel reads: the float16
  # cases, and the relaxed ones kept in float16 (sync, about a minute).
  conformance build float16-arithmetic --modes sync --float16-arithmetic on --filter '*float16*' \
    --baseline "$baseline"
  conformance build relaxed-float16-arithmetic --modes sync --relaxed-float16 on \
    --float16-arithmetic on --filter '*relaxed*' --baseline "$baseline"
  stage_done float16-arithmetic
  # Kernel tuning (measured variants per layer at prepare; AUTO leaves it off
  # on lavapipe, whose rules are measured): the convolution and fully
  # connected cases, synchronous, ten threads at once, and through the
  # compilation cache (under a minute).
  conformance build kernel-tuning --modes sync,threads,cache --kernel-tuning on --filter '*conv*' \
    --baseline "$baseline"
  conformance build kernel-tuning-fc --modes sync,threads --kernel-tuning on \
    --filter '*fully_connected*' --baseline "$baseline"
  stage_done kernel-tuning
  # The NNAPI C API (libneuralnetworks.so): every 30th case; a full pass costs as
  # much as a full sync pass (17.6 against 17.0 minutes, --jobs 2 on a shared
  # 2-core machine: each case compiled through the C API and run four ways).
  conformance build ndk --modes ndk --sample 30 --baseline "$baseline"
  stage_done ndk
fi

# LeakSanitizer would report a block lavapipe keeps after the loader unloads
# it: the ASan runs keep the driver loaded (scripts/keep_driver_loaded.sh).
source scripts/keep_driver_loaded.sh
# The random graphs of test_option_equivalence: 50 seeds in the plain build
# (about 30 s), 8 under the sanitizers, which run every kernel far slower;
# those of test_quant_equivalence: 30 in the plain build (about 20 s), 8
# under the sanitizers (about 20 s under ASan).
export VKNN_DIFF_SEEDS=8 VKNN_QDIFF_SEEDS=8
if build build-sanitize -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false; then
  stage_done asan-build
  keep_driver_loaded unit_tests build-sanitize
  stage_done asan-unit-tests
  # The loop timeout is wall-clock time and a sanitized WHILE runs several
  # times slower: the HAL's maximum (15 s) instead of the default 2 s.
  keep_driver_loaded conformance build-sanitize sampled --modes "$modes" --spread 32 \
    --loop-timeout 15000 --baseline "$baseline"
  keep_driver_loaded conformance build-sanitize extensions --modes "$modes" --loop-timeout 15000 \
    --baseline "$baseline" tests/data
  stage_done asan-conformance
fi

if build build-tsan -Dbuildtype=debug -Db_sanitize=thread -Db_lundef=false; then
  stage_done tsan-build
  export TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp"
  unit_tests build-tsan
  stage_done tsan-unit-tests
  conformance build-tsan concurrent --modes threads,async,fenced,burst --spread 60 \
    --loop-timeout 15000 --baseline "$baseline"
  unset TSAN_OPTIONS
  stage_done tsan-conformance
fi
unset VKNN_DIFF_SEEDS VKNN_QDIFF_SEEDS

fuzz_log=build-fuzz.log
scripts/fuzz.sh 60 > "$fuzz_log" 2>&1
fuzz_rc=$?
stage_done fuzz
if [ "$fuzz_rc" -ne 0 ]; then tail -20 "$fuzz_log"; else grep -E '^fuzz fuzz_' "$fuzz_log"; fi
count "$(grep -cE '^fuzz fuzz_[a-z_]+: passed' "$fuzz_log")" "$(grep -cE '^fuzz fuzz_[a-z_]+: failed' "$fuzz_log")" 0
if [ "$fuzz_rc" -ne 0 ] && ! grep -qE '^fuzz fuzz_[a-z_]+: failed' "$fuzz_log"; then count 0 1 0; fi

echo "Total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
