#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, build-fuzz/) and runs
# each for SECONDS (default 60) from a seed corpus of conformance models
# (fuzz_prepare: model bytes; fuzz_execute: model and input bytes;
# fuzz_cache: compilation-cache files, prepare from cache; fuzz_ndk: model
# bytes, a script of NNAPI C API calls and input bytes, through
# libneuralnetworks.so):
#   scripts/fuzz.sh [SECONDS]
# Prints one line per target ("fuzz TARGET: passed" or "failed") and exits
# non-zero when a target found a crash, a leak or undefined behavior; the
# input that did it is kept in build-fuzz/artifacts/.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# A fixed seed (FUZZ_SEED, default 1) with a fresh corpus replays the same
# mutations first, so that a run's verdict can be reproduced: a longer run
# from the same seed covers a shorter one's inputs. FUZZ_SEED=0 draws one.
seed=${FUZZ_SEED:-1}
dir=build-fuzz

if [ ! -f "$dir/build.ninja" ] &&
   ! CC=clang meson setup "$dir" -Dfuzzing=true -Dbuildtype=debugoptimized -Dwerror=true \
       -Db_sanitize=address,undefined -Db_lundef=false > "$dir.setup.log" 2>&1; then
  cat "$dir.setup.log"; echo "fuzz: configuration failed"; exit 1
fi
# Only the fuzz targets and the seed writer: the unit tests and tools are
# built and run by the other stages.
ninja -C "$dir" tests/fuzz/fuzz_prepare tests/fuzz/fuzz_execute tests/fuzz/fuzz_cache \
  tests/fuzz/fuzz_ndk tests/fuzz/fuzz-seeds > "$dir.build.log" 2>&1 || { tail -40 "$dir.build.log"; echo "fuzz: build failed"; exit 1; }

data=$(sed -n "s/^option('cts_data'.*value : '\([^']*\)'.*/\1/p" meson_options.txt)
seeds=$dir/seeds
rm -rf "$seeds" && mkdir -p "$seeds" "$dir/artifacts"
# V1_0 without MobileNet: small models, so that each run mutates rather than
# spends its time executing the seeds.
small_models=$(ls "$data"/V1_0/*.json | grep -v mobilenet)
"$dir/tests/fuzz/fuzz-seeds" "$seeds" $small_models || exit 1
# fuzz_cache starts from the same models as compilation-cache data files.
rm -rf "$seeds-cache" && mkdir -p "$seeds-cache"
"$dir/tests/fuzz/fuzz-seeds" --cache "$seeds-cache" $small_models || exit 1
# fuzz_ndk: the same models with its script (tests/fuzz/fuzz_ndk_script.h).
rm -rf "$seeds-ndk" && mkdir -p "$seeds-ndk"
"$dir/tests/fuzz/fuzz-seeds" --ndk "$seeds-ndk" $small_models || exit 1

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Keeps lavapipe loaded so that the leak check at exit does not report the
# block it keeps after the loader unloads it (see the file).
source scripts/keep_driver_loaded.sh
status=0
for target in fuzz_prepare fuzz_execute fuzz_cache fuzz_ndk; do
  target_seeds=$seeds
  [ "$target" = fuzz_cache ] && target_seeds=$seeds-cache
  [ "$target" = fuzz_ndk ] && target_seeds=$seeds-ndk
  # Per-input leak checks flag state lavapipe creates lazily (for a new
  # pipeline, a first execution) and keeps until its device closes; leaks
  # are checked at exit instead, after the fuzz device (fuzz_ndk: the
  # library's) is closed.
  corpus=$dir/corpus-$target
  rm -rf "$corpus" && mkdir -p "$corpus"
  log=$dir/$target.log
  if keep_driver_loaded "$dir/tests/fuzz/$target" -seed="$seed" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 -detect_leaks=0 \
       -print_final_stats=1 -artifact_prefix="$dir/artifacts/$target-" "$corpus" "$target_seeds" > "$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz $target: passed ($runs executions in ${seconds}s)"
  else
    grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5
    echo "fuzz $target: failed (log: $log)"
    status=1
  fi
done
exit $status
