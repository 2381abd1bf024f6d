#!/usr/bin/env bash
# Exploratory (not evidence): staged layernorm with two passes over its shared-memory segment
# (patch.py) against the committed Welford fold, and ncu counters of both beside rmsnorm/staged
# (device tool, carry [".whl"]; one call, about 4 min). The benches come before the counters,
# so a call cut short still answers the main question.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261205-layernorm-staged-two-pass
tree_copy twopass
python3 $HERE/patch.py /tmp/twopass
timeout 120 python3 -m epldb --root /tmp/twopass verify layernorm/welford-staged --out $OUT/verify 2>&1 | tail -4
for tree in committed twopass; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 100 python3 -m epldb --root $root bench layernorm/welford-staged --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | sort -k1,1 -k2,2 -k3
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_bytes.sum,l1tex__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,launch__registers_per_thread
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct
for tree in committed twopass; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  timeout 100 ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$M" --csv \
    python3 $HERE/probe.py $root > "$OUT/ncu-$tree.csv" 2> "$OUT/ncu-$tree.err"
  echo "=== ncu $tree"; python3 explorations/ncu.py "$OUT/ncu-$tree.csv"
done
