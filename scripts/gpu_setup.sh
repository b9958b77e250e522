# Sourced by scripts/gpu_measure.sh and gpu_compare.sh on a lent GPU
# machine (from .gpu/, see scripts/gpu_bundle.sh), with $here the bundle's
# folder and $quick 1 on a machine that keeps its own loader. Unpacks the
# Vulkan loader packages into / (a bare device machine has none), points the
# loader at the NVIDIA driver, and unpacks the validation layer and the
# conformance data; $data is the data's folder. Defines run (below).
if [ "${quick:-0}" = 0 ] && ls "$here"/gl/*.deb > /dev/null 2>&1; then
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

# run NAME COMMAND...: the command's output into $out/NAME.txt within
# $limit seconds, its exit status and time into $out/log.txt, and every
# report so far into $dest/reports.tar.gz (the device tool brings back at
# most 8 files, and what was written before a timeout still comes back).
run() {
  name=$1; shift
  echo "== $name: $*" >> "$out/log.txt"
  start=$(date +%s)
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  echo "   exit $? after $(( $(date +%s) - start )) s" >> "$out/log.txt"
  tar -C "$out" -czf "$dest/reports.tar.gz" .
}
