#!/bin/bash
# The instruction mix of the hottest loop lavapipe compiled for a benchmark:
# runs `vknn-bench ARGS --iterations 100000` from BUILD in the background,
# samples it with `perf record`, disassembles the JIT code around the hottest
# samples by attaching gdb to the process, and prints the backward jump
# enclosing the most samples (the loop's length and each opcode's count;
# moves to and from the stack counted as spills), then the next hottest
# loops outside it (the per-lane loops gallivm makes of storage-buffer
# stores, for one) with their share of the samples. Instruction counts do
# not move with the machine's load, so they tell kernel variants apart where
# timings are noisy (docs/perf.md). Needs perf and gdb, and ptrace rights.
#   scripts/lavapipe_loop_mix.sh build kernel conv1x1
set -euo pipefail
build=$1
shift
work=$(mktemp -d)
VKNN_VALIDATION=0 "$build/tools/vknn-bench" "$@" --iterations 100000 >/dev/null 2>&1 &
pid=$!
# The benchmark runs for minutes: it goes whichever way the script ends (a
# reader closing the pipe early, a timeout), not to load later measurements.
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP PIPE
sleep 5
perf record -p "$pid" -o "$work/perf.data" -- sleep 4 >/dev/null 2>&1
perf script -i "$work/perf.data" -F ip 2>/dev/null | sort | uniq -c >"$work/ips"
# The JIT code: from the start of the mapping that holds the most sampled
# user page to 64 KiB past that page (or the mapping's end).
range=$(python3 - "$work/ips" "/proc/$pid/maps" <<'PY'
import collections, sys
pages = collections.Counter()
for line in open(sys.argv[1]):
    count, ip = line.split()
    if int(ip, 16) < 2**47:
        pages[int(ip, 16) >> 12] += int(count)
hot = max(pages, key=pages.get) << 12
for line in open(sys.argv[2]):
    start, end = (int(x, 16) for x in line.split()[0].split('-'))
    if start <= hot < end:
        print('%#x,%#x' % (start, min(end, hot + 0x10000)))
        break
PY
)
gdb -p "$pid" -batch -ex "disassemble $range" 2>/dev/null | grep '^ *0x' >"$work/code" || true
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
loops = []
for i, (address, op, args) in enumerate(code):
    target = re.match(r'(0x[0-9a-f]+)', args) if op.startswith('j') else None
    if target and int(target.group(1), 16) < address and int(target.group(1), 16) in where:
        first = where[int(target.group(1), 16)]
        hits = sum(samples.get(code[k][0], 0) for k in range(first, i + 1))
        loops.append((hits, first, i))
if not loops:
    sys.exit('no loop found in the sampled code')
loops.sort(reverse=True)
hits, first, last = loops[0]
user = sum(v for k, v in samples.items() if k < 2**47)


def mix_of(begin, end):
    mix = collections.Counter()
    for address, op, args in code[begin:end + 1]:
        if op.startswith('vmov') and 'rsp' in args:
            op += ' spill-load' if args.index('rsp') < args.rindex(',') else ' spill-store'
        mix[op] += 1
    return mix


print('loop: %d instructions, %.0f%% of user samples' % (last - first + 1, 100.0 * hits / user))
print(', '.join('%s %d' % item for item in mix_of(first, last).most_common()))
# Further loops that do not overlap the hottest one (nor one already shown).
shown = [(first, last)]
for hits, begin, end in loops[1:]:
    if len(shown) > 8:
        break
    if any(begin <= b and e <= end or b <= begin and end <= e for b, e in shown):
        continue
    shown.append((begin, end))
    top = ', '.join('%s %d' % item for item in mix_of(begin, end).most_common(5))
    print('also: a loop of %d instructions, %.1f%% of user samples: %s'
          % (end - begin + 1, 100.0 * hits / user, top))
PY
