#!/usr/bin/env bash
# Exploratory (not evidence): the working tree's L2 evict_last policy on row input loads and bulk
# copies against the tree before it (.baseline: `git archive` of the parent commit's catalog and
# kernels, carried). Device tool, carry [".whl", ".baseline"]; one call, about 4 minutes. Bench
# only, no peers: the verify comes with the catalog run that follows.
set -u
source "$(dirname "$0")/../env.sh"
IDS="rmsnorm/registers rmsnorm/reread-fixed-cols rmsnorm/staged softmax/online-registers softmax/online-staged layernorm/two-pass-registers"
for tree in baseline hinted; do
  root=$PWD; [ $tree = baseline ] && root=$PWD/.baseline
  echo "=== bench $tree"
  timeout 250 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 \
    | grep -v "^bench \[" | grep -v "at-size" | tail -80
done
find "$OUT" -name '*.env.json' -delete
