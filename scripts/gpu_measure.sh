#!/bin/sh
# The measurements of a lent GPU machine, in one call (scripts/gpu_bundle.sh
# prepares .gpu/). Writes reports into $OUT (or the folder given): the device
# (vknn-info), peak, the kernel table, the synthetic MobileNets with the
# device-local copies off and on and relaxed in float32 and float16, the
# packed layout and the shared-memory tiles each forced off and on, the
# conformance MobileNet and its relaxed twin, one ADD's round trip, three runs
# of the capabilities workloads, and every 4th conformance case in the sync
# mode (with the validation layer). With --quick (a
# check of the script itself, e.g. on lavapipe): fewer iterations, a few
# conformance cases, one capabilities run.
# The device tool brings back at most 8 files, so the reports travel as one
# reports.tar.gz; every step has a time limit so that a slow one cannot cost
# the rest, and the totals are printed last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
dest=${1:-${OUT:?set OUT or give a folder}}
out=$(mktemp -d)
mkdir -p "$dest"
# The loader packages go into / only on the device machine: --quick leaves
# this machine's own.
. "$here/gpu_setup.sh"
cts="$data/nnapi-cts"
bench="$here/bin/vknn-bench"
iters=200; synth_iters=50; runs=3; sample=4
[ "$quick" = 1 ] && { iters=5; synth_iters=3; runs=1; sample=200; }

limit=120

export VKNN_VALIDATION=0
run info "$here/bin/vknn-info"
command -v nvidia-smi > /dev/null &&
  run gpu nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
run peak "$bench" peak
run kernels "$bench" kernel all --iterations "$synth_iters" --json "$out/kernels.json"
for a in off on; do
  run "kernels_f16_arith_$a" "$bench" --float16-arithmetic "$a" kernel all --float16 --iterations "$synth_iters"
done
for m in mobilenet_v1 mobilenet_v2; do
  for c in off on; do
    run "synth_${m}_io_$c" "$bench" --io-copies "$c" synth "$m" --width 1.0 --iterations "$synth_iters"
  done
  run "synth_${m}_profile" "$bench" synth "$m" --width 1.0 --iterations 5 --profile \
    --json "$out/synth_${m}_profile.json"
  # Kernel tuning: AUTO measures the layers at prepare on a GPU (the runs
  # above); the device's rules alone for comparison.
  run "synth_${m}_tuning_off" "$bench" --kernel-tuning off synth "$m" --width 1.0 --iterations "$synth_iters"
  for r in off on; do
    run "synth_${m}_relaxed_f16_$r" "$bench" --relaxed-float16 "$r" synth "$m" --width 1.0 --relaxed \
      --iterations "$synth_iters"
  done
  # float16 tensors with float32 arithmetic (the run above computes in
  # float16 where the device has shaderFloat16).
  run "synth_${m}_relaxed_f16_storage_only" "$bench" --relaxed-float16 on --float16-arithmetic off \
    synth "$m" --width 1.0 --relaxed --iterations "$synth_iters"
done
# What kernel tuning alone decides on a GPU, each way forced: the packed
# arena layout and the shared-memory tiles of the pointwise layers.
for m in mobilenet_v1 mobilenet_v2; do
  for p in off on; do
    run "synth_${m}_packed_$p" "$bench" --packed-layout "$p" synth "$m" --width 1.0 --iterations "$synth_iters"
    run "synth_${m}_shared_tiles_$p" "$bench" --gemm-shared-tiles "$p" synth "$m" --width 1.0 \
      --iterations "$synth_iters"
  done
done
run gender "$bench" model "$cts/V1_0/mobilenet_224_gender_basic_fixed.json" --iterations "$iters"
# The host path: one ADD's synchronous round trip against peak's submit_us.
run add "$bench" model "$cts/V1_0/add.json" --iterations $((iters * 10))
run gender_relaxed "$bench" model "$cts/V1_1/mobilenet_224_gender_basic_fixed_relaxed.json" --iterations "$iters"
i=1
while [ "$i" -le "$runs" ]; do
  run "capabilities_$i" "$bench" capabilities --rounds 11
  i=$((i + 1))
done
export VKNN_VALIDATION=1
limit=200
run cts_sync "$here/bin/vknn-cts" --modes sync --jobs 12 --sample "$sample" "$cts"
tail -1 "$out/cts_sync.txt" >> "$out/log.txt"
tar -C "$out" -czf "$dest/reports.tar.gz" .
cat "$out/log.txt"
# The short table the device tool's reply carries (the reports hold the rest).
cat "$out/peak.txt"
for f in "$out"/synth_*.txt "$out"/gender*.txt "$out"/add.txt; do
  printf '%-48s %s\n' "$(basename "$f" .txt)" "$(grep -m1 'execute:' "$f")"
done
cat "$out/kernels.txt" "$out/kernels_f16_arith_on.txt"
