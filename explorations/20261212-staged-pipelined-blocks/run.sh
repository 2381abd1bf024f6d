#!/usr/bin/env bash
# Exploratory (not evidence): the staged-pipelined norms at bf16 with 256-thread blocks, two or three
# an SM (patch.py), against the committed 512-thread ones. Device tool, carry [".whl"]; one call,
# about 3 minutes. Verifies the copy, then benches both trees at bf16, no peers.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261212-staged-pipelined-blocks
IDS="rmsnorm/staged-pipelined layernorm/two-pass-staged-pipelined"
tree_copy blocks && python3 $HERE/patch.py /tmp/blocks
timeout 150 python3 -m epldb --root /tmp/blocks verify $IDS --out $OUT/verify-blocks 2>&1 | tail -6
for tree in committed blocks; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 150 python3 -m epldb --root $root bench $IDS --where dtype=bfloat16 --no-peers --out $OUT/bench-$tree 2>&1 \
    | grep -v "^bench \[" | grep -v "at-size" | tail -10
done
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
