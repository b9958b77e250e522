#!/usr/bin/env bash
# Installs every Debian package vknn needs to build, test and run on lavapipe.
set -euo pipefail

packages=(
  build-essential pkg-config meson ninja-build python3
  libvulkan-dev libvulkan-volk-dev vulkan-validationlayers mesa-vulkan-drivers vulkan-tools
  glslang-tools spirv-tools spirv-cross
  libcmocka-dev libcjson-dev nettle-dev
  graphviz
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
