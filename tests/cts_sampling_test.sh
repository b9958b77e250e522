#!/usr/bin/env bash
# The runner's samples: --sample N runs every N-th case of each file; --spread
# N every N-th case of the whole run and the first case of each operation
# the stride missed, so that a spread still runs every operation. Checked on
# four small files (12 cases, four operations) with their JSON reports.
set -u
cts="$1"; data="$2"
files=(V1_0/add.json V1_0/avg_pool_float_1.json V1_0/conv_float.json V1_0/depthwise_conv2d_float.json)
for f in "${files[@]}"; do [ -f "$data/$f" ] || { echo "no conformance data: skipped"; exit 77; }; done
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/out"; exit 1; }
paths=("${files[@]/#/$data/}")

# Case count, files (one operation each), and whether every case passed.
summary() {
  python3 - "$1" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
files = {c["file"] for c in cases}
done = all(c["status"] == "passed" for c in cases)
print(len(cases), len(files), "all-passed" if done else "not-all-passed")
PY
}

"$cts" --json "$dir/all.json" "${paths[@]}" > "$dir/out" 2>&1 || fail "the full run must pass"
[ "$(summary "$dir/all.json")" = "12 4 all-passed" ] || fail "full run: $(summary "$dir/all.json")"

# Every 2nd case of each file: 1 + 1 + 2 + 2.
"$cts" --sample 2 --json "$dir/sample.json" "${paths[@]}" > "$dir/out" 2>&1 || fail "--sample 2 must pass"
[ "$(summary "$dir/sample.json")" = "6 4 all-passed" ] || fail "--sample 2: $(summary "$dir/sample.json")"

# Every 12th case of the run is one case, of one file: the other three
# operations come in by their first case, so 4 cases from 4 files, each run.
"$cts" --spread 12 --json "$dir/spread.json" "${paths[@]}" > "$dir/out" 2>&1 || fail "--spread 12 must pass"
[ "$(summary "$dir/spread.json")" = "4 4 all-passed" ] || fail "--spread 12: $(summary "$dir/spread.json")"
grep -qE '^4 passed, 0 failed' "$dir/out" || fail "--spread 12 must count 4 cases"

"$cts" --spread 0 "${paths[@]}" > "$dir/out" 2>&1 && fail "--spread 0 must be refused"
echo "cts sampling: ok"
