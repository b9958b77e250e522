#!/bin/bash
# The instruction mix of the hottest loop lavapipe compiled for a benchmark:
# runs `vknn-bench ARGS --iterations 100000` from BUILD in the background,
# samples it with `perf record`, disassembles the JIT code around the hottest
# samples by attaching gdb to the process, and prints the backward jump
# enclosing the most samples (the loop's length and each opcode's count;
# moves to and from the stack counted as spills). Instruction counts do not
# move with the machine's load, so they tell kernel variants apart where
# timings are noisy (docs/perf.md). Needs perf and gdb, and ptrace rights.
#   scripts/lavapipe_loop_mix.sh build kernel conv1x1
set -euo pipefail
build=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
VKNN_VALIDATION=0 "$build/tools/vknn-bench" "$@" --iterations 100000 >/dev/null 2>&1 &
pid=$!
sleep 5
perf record -p "$pid" -o "$work/perf.data" -- sleep 4 >/dev/null 2>&1
perf script -i "$work/perf.data" -F ip 2>/dev/null | sort | uniq -c >"$work/ips"
# The lowest user page with many samples: the JIT code starts there.
base=$(python3 - "$work/ips" <<'PY'
import collections, sys
pages = collections.Counter()
for line in open(sys.argv[1]):
    count, ip = line.split()
    if int(ip, 16) < 2**47:
        pages[int(ip, 16) >> 12] += int(count)
print(hex(min(p for p, n in pages.items() if n > 200) << 12))
PY
)
gdb -p "$pid" -batch -ex "x/12000i $base" 2>/dev/null | grep '^ *0x' >"$work/code" || true
kill "$pid"
python3 - "$work/ips" "$work/code" <<'PY'
import collections, re, sys
samples = collections.Counter()
for line in open(sys.argv[1]):
    count, ip = line.split()
    samples[int(ip, 16)] += int(count)
code = []
for line in open(sys.argv[2]):
    m = re.match(r'\s*(0x[0-9a-f]+)[^:]*:\s*(\S+)\s*(.*)', line)
    if m:
        code.append((int(m.group(1), 16), m.group(2), m.group(3)))
where = {address: i for i, (address, _, _) in enumerate(code)}
best = None
for i, (address, op, args) in enumerate(code):
    target = re.match(r'(0x[0-9a-f]+)', args) if op.startswith('j') else None
    if target and int(target.group(1), 16) < address and int(target.group(1), 16) in where:
        first = where[int(target.group(1), 16)]
        hits = sum(samples.get(code[k][0], 0) for k in range(first, i + 1))
        if best is None or hits > best[0]:
            best = (hits, first, i)
if best is None:
    sys.exit('no loop found in the sampled code')
hits, first, last = best
user = sum(v for k, v in samples.items() if k < 2**47)
print('loop: %d instructions, %.0f%% of user samples' % (last - first + 1, 100.0 * hits / user))
mix = collections.Counter()
for address, op, args in code[first:last + 1]:
    if op.startswith('vmov') and 'rsp' in args:
        op += ' spill-load' if args.index('rsp') < args.rindex(',') else ' spill-store'
    mix[op] += 1
print(', '.join('%s %d' % item for item in mix.most_common()))
PY
