#!/bin/sh
# Compares builds of vknn-bench on a lent GPU machine in one call: every
# binary under .gpu/compare/ (named by what it is, e.g. 762d1a8) and the
# current .gpu/bin/vknn-bench ("new") run the synthetic MobileNets and the
# conformance MobileNet in alternating rounds, so that the ratios come from
# one machine and one run. Then the current build alone: peak, the kernel
# table, per-dispatch profiles (JSON for tools/bench/dispatch_chart.py),
# relaxed models, and every 4th conformance case in the sync mode with the
# validation layer. Prepare with scripts/gpu_bundle.sh, copy the other
# builds (stripped) into .gpu/compare/, then:
#   carry: [".gpu"], command: "sh .gpu/gpu_compare.sh"
# The reports come back as one reports.tar.gz; the totals are printed last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dest=${OUT:?set OUT}
. "$here/gpu_setup.sh"
cts="$data/nnapi-cts/V1_0/mobilenet_224_gender_basic_fixed.json"
out=$(mktemp -d)
new="$here/bin/vknn-bench"
limit=60
export VKNN_VALIDATION=0
run info "$here/bin/vknn-info"
command -v nvidia-smi > /dev/null &&
  run gpu nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
for round in 1 2 3; do
  for bin in "$here"/compare/* "$new"; do
    b=$(basename "$bin"); [ "$bin" = "$new" ] && b=new
    for m in mobilenet_v1 mobilenet_v2; do
      run "synth_${m}_${b}_$round" "$bin" synth "$m" --width 1.0 --iterations 100
    done
    run "gender_${b}_$round" "$bin" model "$cts" --iterations 300
  done
done
run peak "$new" peak
run kernels "$new" kernel all --iterations 50
run kernels_f16 "$new" kernel all --float16 --iterations 50
for m in mobilenet_v1 mobilenet_v2; do
  run "profile_$m" "$new" synth "$m" --width 1.0 --iterations 5 --profile --json "$out/profile_$m.json"
  run "relaxed_$m" "$new" synth "$m" --width 1.0 --relaxed --iterations 50
  run "relaxed_${m}_f32_arith" "$new" --float16-arithmetic off synth "$m" --width 1.0 --relaxed --iterations 50
done
run gender_profile "$new" model "$cts" --iterations 20 --profile
# Which variants kernel tuning keeps for the relaxed model (and each one's time).
export VKNN_LOG=tuning
run relaxed_v1_tuning_log "$new" synth mobilenet_v1 --width 1.0 --relaxed --iterations 20 --profile
unset VKNN_LOG
export VKNN_VALIDATION=1
limit=150
run cts_sync "$here/bin/vknn-cts" --modes sync --jobs 12 --sample 4 "$data/nnapi-cts"
grep -v '^   exit 0 ' "$out/log.txt"
tail -1 "$out/cts_sync.txt"
for f in "$out"/synth_* "$out"/gender_*_[0-9].txt "$out"/relaxed_mobilenet_*; do
  printf '%-36s %s\n' "$(basename "$f" .txt)" "$(grep -m1 'execute:' "$f")"
done
cat "$out/peak.txt" "$out/kernels.txt"
