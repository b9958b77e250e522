#!/usr/bin/env bash
# Builds vknn, prints what the driver reports about the device, runs one small
# model through it, then the conformance MobileNet: the support answer,
# prepare time, the result against the expected output, median latency over a
# few executions and the five slowest dispatches.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
# The conformance data the build was configured with (meson option cts_data).
cts_data=$(meson introspect build --buildoptions |
  python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "cts_data"))')
case $cts_data in /*) ;; *) cts_data=$PWD/$cts_data ;; esac
build/tools/vknn-info
echo
build/tools/vknn-demo
echo
build/tools/vknn-demo "$cts_data/V1_0/mobilenet_224_gender_basic_fixed.json"
