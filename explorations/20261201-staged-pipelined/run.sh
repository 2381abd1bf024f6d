#!/usr/bin/env bash
# Exploratory (not evidence): the staged rows over a persistent grid with the next row's segment in
# flight (staged_pipelined.cuh), against softmax/online-staged and rmsnorm/staged in the same run,
# at the long-row shapes (device tool, carry [".whl"]; one call, about 3 min). The patched tree is a
# copy: stage_bulk.cuh's stage_bulk replaced by its three steps, arm / copy / wait
# (stage_bulk_split.part), the new header, two kernels and two draft records; verify first (a wrong
# phase parity hangs, so the call's time limit is the guard), then bench in fp32 and bf16.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261201-staged-pipelined
A=/tmp/pipelined; rm -rf $A; mkdir -p $A; cp -r catalog kernels $A/
python3 - $A/kernels/include/epl/block/stage_bulk.cuh $HERE/stage_bulk_split.part <<'PY'
import sys, pathlib
p = pathlib.Path(sys.argv[1]); s = p.read_text()
begin = s.index("// Every thread of the block calls it, converged. dst: shared")
end = s.index("#endif  // __CUDA_ARCH__ >= 900")
p.write_text(s[:begin] + pathlib.Path(sys.argv[2]).read_text() + s[end:])
PY
cp $HERE/staged_pipelined.cuh $A/kernels/include/epl/row/staged_pipelined.cuh
for op in softmax rmsnorm; do
  cp $HERE/$op-staged-pipelined.cu $A/kernels/operators/$op/staged-pipelined.cu
  cp $HERE/$op-staged-pipelined.yaml $A/catalog/realizations/$op/staged-pipelined.yaml
done
sed -i 's/^status: verified/status: draft/' $A/catalog/realizations/*/*.yaml  # the copy's evidence is elsewhere
NEW="softmax/staged-pipelined rmsnorm/staged-pipelined"
BASE="softmax/online-staged rmsnorm/staged"
timeout 120 python3 -m epldb --root $A verify $NEW --out $OUT/verify 2>&1 | tail -4
timeout 300 python3 -m epldb --root $A bench $NEW $BASE --no-peers --out $OUT/bench 2>&1 | grep -v "^bench \[" | tail -40
