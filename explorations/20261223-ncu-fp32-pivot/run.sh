#!/usr/bin/env bash
# Exploratory (not evidence): ncu counters of layernorm/shifted-staged-pipelined's three pivots
# (probe.py) at 1024 x 65536, fp32 and bf16; device tool, carry [".whl"], one call, about 4 minutes
# (three cold builds of the record, then six profiled launches). Writes ncu.csv under $OUT.
set -u
source "$(dirname "$0")/../env.sh"
tree_copy nohead && sed -i 's/static constexpr bool kReadsRowHead = true;/static constexpr bool kReadsRowHead = false;/' \
  /tmp/nohead/kernels/include/epl/row/shifted_sums.cuh
tree_copy local && python3 explorations/20261221-local-pivot/patch.py /tmp/local
for t in /tmp/nohead /tmp/local .; do  # build outside ncu, side by side
  python3 -m epldb --root $t compile layernorm/shifted-staged-pipelined --target sm_90a >/dev/null 2>&1 &
done; wait
S=smsp__warp_issue_stalled
E=${S}_misc_per_warp_active.pct,${S}_mio_throttle_per_warp_active.pct,${S}_no_instruction_per_warp_active.pct
E=$E,${S}_selected_per_warp_active.pct,${S}_not_selected_per_warp_active.pct,sm__cycles_active.avg
ncu_probe explorations/20261223-ncu-fp32-pivot "$E" 2>&1 | grep -E "^ *[0-9]+ |gpu__time|dram__bytes|lts__t_bytes|warps_active|issue_active|long_score|short_score|barrier|membar|sleeping|wait_per|mio|cycles_active|registers|inst_executed"
