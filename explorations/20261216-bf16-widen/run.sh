#!/usr/bin/env bash
# Exploratory (not evidence): bfloat16 vectors widened by shift and mask everywhere (epl/thread/
# widen.cuh, the working tree) against the tree before it (.baseline: `git archive` of the parent
# commit's catalog and kernels, carried). Device tool, carry [".whl", ".baseline"]; one call, about
# 3 minutes. Bench only, bfloat16 only, no peers: fp32 SASS is unchanged by the change.
set -u
source "$(dirname "$0")/../env.sh"
IDS="layernorm/two-pass-staged layernorm/welford-staged rmsnorm/staged softmax/online-staged
     rmsnorm/staged-pipelined layernorm/two-pass-staged-pipelined layernorm/two-pass-registers rmsnorm/registers"
for tree in baseline widened; do
  root=$PWD; [ $tree = baseline ] && root=$PWD/.baseline
  echo "=== bench $tree"
  timeout 200 python3 -m epldb --root $root bench $IDS --where dtype=bfloat16 --no-peers --out $OUT/bench-$tree 2>&1 \
    | grep -v "^bench \[" | grep -v "at-size" | tail -40
done
find "$OUT" -name '*.env.json' -delete
