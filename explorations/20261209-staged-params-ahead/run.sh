#!/usr/bin/env bash
# Exploratory (not evidence): the staged rewrite with its parameters one round ahead (patch.py),
# loaded after the all-reduce ('late') or before the fold ('early'), against the committed rewrite.
# Device tool, carry [".whl"]; one call, about 4 minutes (three trees compile cold). Verify both
# copies, then bench the three trees one after the other, no peers, each with its own ceilings.
# Only about 8 files come back from a call: one env.json is kept, the CSVs all.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261209-staged-params-ahead
IDS="rmsnorm/staged layernorm/two-pass-staged"
tree_copy late && python3 $HERE/patch.py /tmp/late
tree_copy early && python3 $HERE/patch.py /tmp/early early
for tree in late early; do
  timeout 120 python3 -m epldb --root /tmp/$tree verify $IDS --out $OUT/verify-$tree 2>&1 | tail -5
done
for tree in committed late early; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 150 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | grep -v "at-size" | tail -26
done
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
