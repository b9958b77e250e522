#!/usr/bin/env bash
# Configures (once) and builds vknn in build/ with warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build -Dwerror=true -Dbuildtype=debugoptimized
ninja -C build
