#!/usr/bin/env bash
# vknn-bench runs its verbs to completion (exit 0) and reports sane figures:
# positive, finite times and rates, the fields the documentation names. No
# figure is compared with a threshold: performance is measured, not tested.
set -u
bench="$1"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/log"; exit 1; }

run() { # name, then the arguments
  local name="$1"; shift
  "$bench" "$@" --json "$dir/$name.json" > "$dir/log" 2>&1 || fail "vknn-bench $* exited with $?"
  cat "$dir/log"
}

# Every listed field of the JSON report (dotted paths) is a positive finite
# number; a field written ~name is only finite (a difference of two timings,
# which a loaded machine's noise can make zero or negative).
check() { # name, then the fields
  local name="$1"; shift
  python3 - "$dir/$name.json" "$@" <<'PY' || fail "$name report"
import json, math, sys
report = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    finite_only = path.startswith('~')
    path = path.lstrip('~')
    value = report
    for key in path.split('.'):
        value = value[int(key)] if isinstance(value, list) else value[key]
    if not isinstance(value, (int, float)) or not math.isfinite(value) or (value <= 0 and not finite_only):
        sys.exit('%s is %r' % (path, value))
PY
}

run peak peak
check peak fma_gflops bandwidth_gbs submit_us ~dispatch_us

run kernel kernel conv1x1 --shape small --iterations 2
check kernel peak_fma_gflops kernels.0.macs kernels.0.gpu_ms.median kernels.0.gflops \
  kernels.0.peak_fraction
grep -q '^conv1x1 *8x8x16:16 ' "$dir/log" || fail "no conv1x1 row"
# Device options before the verb reach the device: the matrix kernel's
# variant names them (lavapipe shares filter loads by default).
run kernel_options --operand-reads storage --subgroup-filter off kernel conv1x1 --shape small --iterations 2
grep -q '^conv1x1 *8x8x16:16 *conv2d_gemm_f32 ' "$dir/log" || fail "device options not applied"
"$bench" --subgroup-filter sometimes peak > "$dir/log" 2>&1
[ $? -eq 2 ] && grep -q "'sometimes' is none of its values" "$dir/log" || fail "a bad option value ran"

run kernel_bytes kernel resize_bilinear_2x --shape small --iterations 2
check kernel_bytes bandwidth_gbs kernels.0.bytes kernels.0.gpu_ms.median kernels.0.gbs \
  kernels.0.bandwidth_fraction
grep -q '^resize_bilinear_2x *16x16x8 ' "$dir/log" || fail "no resize_bilinear_2x row"
run reduction kernel mean_hw --shape small --iterations 2
check reduction peak_bandwidth_gbs kernels.0.bytes kernels.0.gpu_ms.median kernels.0.gbs \
  kernels.0.bandwidth_fraction
grep -q '^mean_hw *1x9x9x16 ' "$dir/log" || fail "no mean_hw row"

run synth synth mobilenet_v1 --width 0.25 --input-size 64 --iterations 1
check synth macs prepare_ms execute_ms.median gpu_ms.median largest_probability
grep -q '^outputs: *finite, softmax sums to 1' "$dir/log" || fail "outputs not checked"

run loop loop --iterations 2 --loop 4
check loop execution_us execution_series_us while_one_iteration_us while_long_us ~while_iteration_us if_us
grep -q '^WHILE iteration: ' "$dir/log" || fail "no WHILE iteration row"
run capabilities capabilities --rounds 1
check capabilities float32.ratio relaxed.ratio quant8_asymm.ratio int32.ratio bool8.ratio if.ratio \
  while.ratio float32.host_ms while.device_ms
grep -q '^WHILE (4 x conv) ' "$dir/log" || fail "no WHILE row"
echo "vknn-bench smoke test passed"
