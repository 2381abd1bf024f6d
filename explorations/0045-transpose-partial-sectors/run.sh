#!/usr/bin/env bash
# Experiment 0045 on a lent GPU (the device tool's run, carry [".whl", "explorations"] after
# `git show <commit>:explorations/0045-transpose-partial-sectors/...` restored this folder):
# verify and bench the rung beside the others, then profile the cases profile.py names.
cd "$(dirname "$0")/../.."
export EPL_GIT_COMMIT=${EPL_GIT_COMMIT:?a full sha of main} EPL_GIT_DIRTY=0
bash tools/gpu-run.sh @60 verify transpose/sector-tile -- @200 bench transpose 2>&1 | grep -v "^\s*$" | tail -40
export PYTHONPATH="$PWD:/tmp/site"
X=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_sector_op_write_hit_rate.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct
timeout 150 $(python3 tools/ncu.py command explorations/0045-transpose-partial-sectors/profile.py $X) > $OUT/ncu.csv 2> $OUT/ncu.err
python3 tools/ncu.py summarize $OUT/ncu.csv > $OUT/ncu.txt && tail -60 $OUT/ncu.txt
