#!/usr/bin/env bash
# Builds vknn, prints what the driver reports about the device, and runs one
# small model through it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
build/tools/vknn-info
echo
build/tools/vknn-demo
