#!/bin/sh
# `meson install` into a temporary prefix, then two clients built against
# that prefix with pkg-config alone: the NNAPI example (neuralnetworks.pc),
# run on the conformance MobileNet, and the vknn API example (vknn.pc,
# static), run once.
#   install_test.sh BUILD_DIR SOURCE_DIR CTS_DATA
set -eu
build=$1 src=$2 data=$3
model=$data/V1_0/mobilenet_224_gender_basic_fixed.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp" --no-rebuild --quiet
PKG_CONFIG_PATH=$(dirname "$(find "$tmp" -name neuralnetworks.pc)")
export PKG_CONFIG_PATH
unset LD_LIBRARY_PATH # meson test points it at the build tree
# The .pc files name the configured prefix; the files are under $tmp.
prefix=$tmp$(pkg-config --variable=prefix neuralnetworks)
pc() { pkg-config --define-variable=prefix="$prefix" "$@"; }
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/nnapi-mobilenet" "$src/examples/nnapi_mobilenet.c" \
  $(pc --cflags --libs neuralnetworks libcjson) -lm
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/vknn-capabilities" "$src/examples/vknn_capabilities.c" \
  $(pc --static --cflags --libs vknn)
libdir=$(pc --variable=libdir neuralnetworks)
# Nothing may come from the build tree.
if ldd "$tmp/nnapi-mobilenet" | grep -q "$(cd "$build" && pwd)"; then echo "linked into the build tree"; exit 1; fi
"$tmp/vknn-capabilities" > /dev/null
if [ ! -f "$model" ]; then echo "no conformance data at $data: skipped"; exit 77; fi
LD_LIBRARY_PATH=$libdir "$tmp/nnapi-mobilenet" "$model"
