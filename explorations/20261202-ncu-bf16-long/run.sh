#!/usr/bin/env bash
# Exploratory (not evidence): ncu counters of the kernels at issue 7's second-bar misses (probe.py;
# device tool, carry [".whl"]; one call, about 2 min). Writes ncu.csv under $OUT and prints one
# block of metrics per launch.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261202-ncu-bf16-long
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,sm__inst_executed.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers
M=$M,launch__occupancy_limit_shared_mem,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_membar_per_warp_active.pct,smsp__warp_issue_stalled_sleeping_per_warp_active.pct
M=$M,sm__cycles_active.avg,sm__ctas_launched.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
timeout 400 ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$M" --csv \
  python3 $HERE/probe.py > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
tail -3 "$OUT/ncu.err"
python3 explorations/ncu.py "$OUT/ncu.csv"
