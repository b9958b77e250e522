#!/bin/sh
# vknn-info opens the device and prints every section: the driver's answers,
# the Vulkan features behind them, and the kernel variants chosen.
set -eu
out=$("$1")
for line in 'version:' 'extensions:' 'operand performance' 'subgroup size:' 'float16 arith:' '8-bit storage:' \
    'integer dot:' 'external memory:' 'external fences:' 'workgroup count' 'storage binding' \
    'operand reads ' 'relaxed models ' 'kernels usable'; do
  printf '%s\n' "$out" | grep -q -- "$line" || { echo "vknn-info printed no '$line'"; exit 1; }
done
