#!/usr/bin/env bash
# The conformance baseline catches a regression: a listed case that does not
# pass fails the run (here: a case the driver reports unsupported, listed as if
# it passed), and a passing case the baseline does not list is printed.
set -u
cts="$1"; data="$2"
[ -f "$data/V1_0/add.json" ] && [ -f "$data/V1_3/hard_swish.json" ] || { echo "no conformance data: skipped"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/out"; exit 1; }

"$cts" --write-baseline "$dir/add.txt" "$data/V1_0/add.json" > "$dir/out" 2>&1 || fail "add.json must pass"
grep -qx 'V1_0/add.json:add' "$dir/add.txt" || fail "the written baseline lacks V1_0/add.json:add"

"$cts" --baseline "$dir/add.txt" "$data/V1_0/add.json" > "$dir/out" 2>&1 || fail "a run matching its baseline must pass"
grep -q '^baseline: 0 listed cases did not pass' "$dir/out" || fail "no baseline summary"

# A case that fails bit-exact comparison (one step off the data, within the
# default tolerance: docs/architecture.md, Numerics), listed as if it passed.
case=hard_swish_simple_quant8_2
printf 'V1_3/hard_swish.json:%s\n' "$case" > "$dir/regressed.txt"
"$cts" --quant-tolerance 0 --filter "$case" --baseline "$dir/regressed.txt" "$data/V1_3/hard_swish.json" > "$dir/out" 2>&1
[ $? -eq 1 ] || fail "a listed case that does not pass must fail the run"
grep -q "^REGRESSED V1_3/hard_swish.json:$case" "$dir/out" || fail "the regression is not named"
grep -qE '^0 passed, [1-9][0-9]* failed' "$dir/out" || fail "the regression must count as failed"

: > "$dir/empty.txt"
"$cts" --baseline "$dir/empty.txt" "$data/V1_0/add.json" > "$dir/out" 2>&1 || fail "an unlisted pass is not a failure"
grep -q '^NEW PASS V1_0/add.json:add' "$dir/out" || fail "an unlisted pass must be printed"
echo "cts baseline: ok"
