#!/usr/bin/env bash
# Exploratory (not evidence): does our reread read DRAM twice where Triton reads it once? ncu on the
# three fp32 norm cases still behind torch.compile (device tool, carry [".whl"]; one call, ~2 min).
# Writes ncu.csv and Inductor's sources for the three cases under $OUT.
set -u
source "$(dirname "$0")/../env.sh"
python3 explorations/20261130-ncu-fp32-norms/probe.py torch >/dev/null 2>&1  # compile and cache Inductor's kernels first
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,launch__registers_per_thread
M=$M,launch__block_size,launch__grid_size,launch__occupancy_limit_registers
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
M=$M,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct
ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$M" --csv \
  python3 explorations/20261130-ncu-fp32-norms/probe.py > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
tail -3 "$OUT/ncu.err"
python3 explorations/ncu.py "$OUT/ncu.csv"
