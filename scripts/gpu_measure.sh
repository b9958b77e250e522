#!/bin/sh
# The measurements of a lent GPU machine, in one call (scripts/gpu_bundle.sh
# prepares .gpu/). Writes reports into $OUT (or the folder given): the device
# (vknn-info), peak, the kernel table, the synthetic MobileNets with the
# device-local copies off and on and relaxed in float32 and float16, the
# conformance MobileNet and its relaxed twin, three runs of the capabilities
# workloads, and every 4th conformance case in the sync mode (with the
# validation layer). With --quick (a
# check of the script itself, e.g. on lavapipe): fewer iterations, a few
# conformance cases, one capabilities run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
out=${1:-${OUT:?set OUT or give a folder}}
mkdir -p "$out"
# The loader packages go into / (a bare device machine has none; never here:
# --quick leaves this machine's own).
if [ "$quick" = 0 ] && ls "$here"/gl/*.deb > /dev/null 2>&1; then
  for f in "$here"/gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
layer=/tmp/vknn-layer
mkdir -p "$layer" && cp "$here/layer/VkLayer_khronos_validation.json" "$layer/" &&
  xz -dc "$here/layer/libVkLayer_khronos_validation.so.xz" > "$layer/libVkLayer_khronos_validation.so"
export VK_LAYER_PATH="$layer"
data=/tmp/vknn-data
mkdir -p "$data" && xz -dc "$here/nnapi-cts.tar.xz" | tar -C "$data" -xf -
cts="$data/nnapi-cts"
bench="$here/bin/vknn-bench"
iters=200; synth_iters=50; runs=3; sample=4
[ "$quick" = 1 ] && { iters=5; synth_iters=3; runs=1; sample=200; }

run() { # name, command...: its output into $out/name.txt
  name=$1; shift
  echo "== $name: $*" >> "$out/log.txt"
  "$@" > "$out/$name.txt" 2>&1
  echo "   exit $?" >> "$out/log.txt"
}

export VKNN_VALIDATION=0
run info "$here/bin/vknn-info"
run peak "$bench" peak
run kernels "$bench" kernel all --iterations "$synth_iters"
for a in off on; do
  run "kernels_f16_arith_$a" "$bench" --float16-arithmetic "$a" kernel all --float16 --iterations "$synth_iters"
done
for m in mobilenet_v1 mobilenet_v2; do
  for c in off on; do
    run "synth_${m}_io_$c" "$bench" --io-copies "$c" synth "$m" --width 1.0 --iterations "$synth_iters"
  done
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
run gender "$bench" model "$cts/V1_0/mobilenet_224_gender_basic_fixed.json" --iterations "$iters"
run gender_relaxed "$bench" model "$cts/V1_1/mobilenet_224_gender_basic_fixed_relaxed.json" --iterations "$iters"
i=1
while [ "$i" -le "$runs" ]; do
  run "capabilities_$i" "$bench" capabilities --rounds 11
  i=$((i + 1))
done
export VKNN_VALIDATION=1
run cts_sync "$here/bin/vknn-cts" --modes sync --jobs 8 --sample "$sample" "$cts"
tail -1 "$out/cts_sync.txt" >> "$out/log.txt"
