#!/usr/bin/env bash
# Builds vknn and runs the whole test suite: the unit tests (Vulkan validation
# layer on) and the conformance runner over ../shared/nnapi-cts.
# Ends with one line: "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0; failed=0; skipped=0

# Unit tests (cmocka, one executable per module).
meson test -C build --print-errorlogs --num-processes 2 > build/unit-tests.log 2>&1
unit_rc=$?
grep -E '^ *[0-9]+/[0-9]+ ' build/unit-tests.log
up=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' build/unit-tests.log)
uf=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' build/unit-tests.log)
ut=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' build/unit-tests.log)
us=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' build/unit-tests.log)
passed=$((passed + ${up:-0})); failed=$((failed + ${uf:-0} + ${ut:-0})); skipped=$((skipped + ${us:-0}))
if [ "$unit_rc" -ne 0 ] && [ "${uf:-0}${ut:-0}" = "00" ]; then
  cat build/unit-tests.log; failed=$((failed + 1))
fi

# Conformance: every case through every implemented mode.
build/tests/vknn-cts --modes sync --json build/cts-sync.json > build/cts-sync.log 2>&1
cts_rc=$?
grep -vE '^(FAILED )' build/cts-sync.log | grep -vE '^[0-9]+ passed' || true
grep -E '^FAILED ' build/cts-sync.log | head -50 || true
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' build/cts-sync.log | tail -1)
cp=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
cf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
cs=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
passed=$((passed + ${cp:-0})); failed=$((failed + ${cf:-0})); skipped=$((skipped + ${cs:-0}))
if [ -z "$line" ] || { [ "$cts_rc" -ne 0 ] && [ "${cf:-0}" -eq 0 ]; }; then
  echo "vknn-cts did not complete (exit $cts_rc)"; failed=$((failed + 1))
fi

echo "Total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
