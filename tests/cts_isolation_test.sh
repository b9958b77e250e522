#!/usr/bin/env bash
# The conformance runner survives a crashing and a hanging case, counts each
# as failed, runs the cases after them, and reports missing data as skipped.
# (Under AddressSanitizer a crash ends the worker with an exit status, not a signal.)
set -u
cts="$1"; data="$2"
[ -f "$data/V1_0/add.json" ] || { echo "no conformance data: skipped"; exit 77; }
out=$(mktemp); trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

VKNN_CTS_FAULT=crash:add "$cts" --jobs 1 "$data/V1_0/add.json" > "$out" 2>&1
[ $? -eq 1 ] || fail "a crashed case must make the run fail"
grep -qE '^FAILED add \(.*(crashed \(signal 11\)|worker exited)' "$out" || fail "crash not reported"
grep -q '^1 passed, 1 failed' "$out" || fail "the case after the crash did not run"

VKNN_CTS_FAULT=hang:add "$cts" --jobs 1 --timeout 2 "$data/V1_0/add.json" > "$out" 2>&1
[ $? -eq 1 ] || fail "a hung case must make the run fail"
grep -q '^FAILED add (.*timed out after 2 s' "$out" || fail "hang not reported"
grep -q '^1 passed, 1 failed' "$out" || fail "the case after the hang did not run"

"$cts" /nonexistent/nnapi-cts > "$out" 2>&1
[ $? -eq 0 ] || fail "missing data is not an error"
grep -q '^0 passed, 0 failed, 1 skipped' "$out" || fail "missing data must count as skipped"

# Every mode of the list is implemented now (cache was the last): an unknown
# one must still be an error.
"$cts" --modes sync,no-such-mode "$data/V1_0/add.json" > "$out" 2>&1
[ $? -eq 2 ] || fail "an unknown mode must be an error"
echo "cts isolation: ok"
