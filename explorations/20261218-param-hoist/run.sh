#!/usr/bin/env bash
# Exploratory (not evidence): the rewrite's parameter loads issued with the round's other loads
# (patch.py), against the committed tree. Device tool, carry [".whl"]; one call, about 3 minutes.
# Bench only (its correctness check stands for a verify here), no peers.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261218-param-hoist
IDS="layernorm/two-pass-staged layernorm/shifted-staged rmsnorm/staged"
tree_copy hoisted && python3 $HERE/patch.py /tmp/hoisted
for tree in committed hoisted; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 110 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 \
    | grep -v "^bench \[" | grep -v "at-size" | tail -28
done
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
