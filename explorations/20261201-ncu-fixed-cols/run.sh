#!/usr/bin/env bash
# Exploratory (not evidence): ncu stall reasons of our fixed-column kernels against Inductor's at the
# three fp32 cases still behind torch.compile (probe.py; device tool, carry [".whl"]; one call,
# ~3 min). Writes ncu.csv and Inductor's sources under $OUT, prints one block of metrics per launch.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261201-ncu-fixed-cols
python3 $HERE/probe.py torch >/dev/null 2>&1  # compile and cache Inductor's kernels first
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sector_hit_rate.pct
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,sm__inst_executed.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers
M=$M,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__shared_mem_config_size
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_membar_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct
M=$M,sm__ctas_launched.sum
ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$M" --csv \
  python3 $HERE/probe.py > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
tail -3 "$OUT/ncu.err"
python3 explorations/ncu.py "$OUT/ncu.csv"
