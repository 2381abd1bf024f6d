#!/usr/bin/env bash
# Exploratory (not evidence): ncu counters of rmsnorm/staged and rmsnorm/staged-pipelined at 128 x
# 262144 and 1024 x 65536 (probe.py; device tool, carry [".whl"]; one call, about 1 min), with every
# stall reason and the SMs' active cycles. Writes ncu.csv under $OUT and prints one block of metrics
# per launch.
set -u
source "$(dirname "$0")/../env.sh"
S=smsp__warp_issue_stalled
E=${S}_misc_per_warp_active.pct,${S}_dispatch_stall_per_warp_active.pct,${S}_mio_throttle_per_warp_active.pct
E=$E,${S}_math_pipe_throttle_per_warp_active.pct,${S}_no_instruction_per_warp_active.pct
E=$E,${S}_selected_per_warp_active.pct,${S}_not_selected_per_warp_active.pct
E=$E,${S}_branch_resolving_per_warp_active.pct,${S}_tex_throttle_per_warp_active.pct
E=$E,sm__cycles_active.avg,smsp__cycles_active.avg
ncu_probe explorations/20261211-ncu-staged-pipelined "$E"
