#!/usr/bin/env bash
# Exploratory (not evidence): the staged row operators with their parameter reads moved to a 16 KiB
# window or dropped (patch.py), against the committed tree, to price the per-row L2 rereads of the
# weight and bias slices. Device tool, carry [".whl"]; one call, about 4 minutes. Bench only, no
# peers: the patched outputs are wrong on purpose (the bench times them and marks them incorrect).
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261217-param-reads
IDS="layernorm/two-pass-staged rmsnorm/staged softmax/online-staged"
for variant in window none; do tree_copy $variant && python3 $HERE/patch.py /tmp/$variant $variant; done
for tree in committed window none; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 120 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 \
    | grep -v "^bench \[" | grep -v "at-size" | tail -26
done
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
