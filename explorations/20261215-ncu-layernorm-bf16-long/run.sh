#!/usr/bin/env bash
# Exploratory (not evidence): ncu counters of the staged norms at bf16 long rows (probe.py; device
# tool, carry [".whl"]; one call, about 1 min), with every stall reason and the SMs' active cycles.
# Writes ncu.csv under $OUT and prints one block of metrics per launch.
set -u
source "$(dirname "$0")/../env.sh"
S=smsp__warp_issue_stalled
E=${S}_misc_per_warp_active.pct,${S}_mio_throttle_per_warp_active.pct,${S}_no_instruction_per_warp_active.pct
E=$E,${S}_selected_per_warp_active.pct,${S}_not_selected_per_warp_active.pct
E=$E,${S}_branch_resolving_per_warp_active.pct,sm__cycles_active.avg,smsp__cycles_active.avg
ncu_probe explorations/20261215-ncu-layernorm-bf16-long "$E" 2>&1 | grep -E "^ *[0-9]+ |gpu__time|dram__bytes|lts__t_bytes|warps_active|issue_active|long_score|barrier|membar|sleeping|wait_per|cycles_active|registers|inst_executed"
