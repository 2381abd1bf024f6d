#!/usr/bin/env bash
# Exploratory (not evidence): ncu counters of rmsnorm/staged and rmsnorm/staged-pipelined at 128 x
# 262144 (probe.py; device tool, carry [".whl"]; one call, about 1 min). Writes ncu.csv under $OUT
# and prints one block of metrics per launch.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261211-ncu-staged-pipelined
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,l1tex__t_bytes.sum,l1tex__t_sector_hit_rate.pct,sm__inst_executed.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,launch__registers_per_thread,launch__occupancy_limit_shared_mem,sm__ctas_launched.sum
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_sleeping_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_misc_per_warp_active.pct,smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,smsp__warp_issue_stalled_tex_throttle_per_warp_active.pct,sm__cycles_active.avg,smsp__cycles_active.avg
timeout 400 ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$M" --csv \
  python3 $HERE/probe.py > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
tail -3 "$OUT/ncu.err"
python3 explorations/ncu.py "$OUT/ncu.csv"
