#!/bin/sh
# Prepares .gpu/ (ignored through .git/info/exclude) for a run on a lent GPU
# machine (the device tool): the tools stripped, the libraries a bare machine
# lacks, the Vulkan validation layer, the conformance data as .tar.xz and the
# Vulkan loader packages. Then one device call runs everything:
#   carry: [".gpu"], command: "sh .gpu/gpu_measure.sh"   (scripts/gpu_measure.sh)
# which writes its reports under $OUT; or "sh .gpu/gpu_compare.sh" to set
# earlier builds (copied into .gpu/compare/) against this one. About 20 MB
# travel, each further build 3 MB.
set -eu
cd "$(dirname "$0")/.."
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
ninja -C build tools/vknn-bench tools/vknn-info tests/vknn-cts > /dev/null
rm -rf .gpu
mkdir -p .gpu/bin .gpu/lib .gpu/layer .gpu/gl
for b in build/tools/vknn-bench build/tools/vknn-info build/tests/vknn-cts; do
  strip -o ".gpu/bin/$(basename "$b")" "$b"
done
# The libraries of the tools other than glibc's (cJSON, nettle).
ldd build/tools/vknn-bench build/tests/vknn-cts | awk '/=> \// {print $3}' | sort -u |
  grep -vE '/lib(c|m|pthread|dl|rt)\.so' | while read -r lib; do cp -L "$lib" .gpu/lib/; done
xz -6 -T2 -c /usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so > .gpu/layer/libVkLayer_khronos_validation.so.xz
sed 's|"library_path": *"[^"]*"|"library_path": "./libVkLayer_khronos_validation.so"|' \
  /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json > .gpu/layer/VkLayer_khronos_validation.json
tar -C ../shared -cf - nnapi-cts | xz -6 -T2 > .gpu/nnapi-cts.tar.xz
cp scripts/gpu_setup.sh scripts/gpu_measure.sh scripts/gpu_compare.sh .gpu/
# The loader and GL dispatch packages (the device tool's README: a bare machine has none).
a='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial
# shellcheck disable=SC2086
apt-get $a update > /dev/null && (cd .gpu/gl && apt-get $a download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 > /dev/null)
du -sh .gpu
