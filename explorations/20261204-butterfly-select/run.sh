#!/usr/bin/env bash
# Exploratory (not evidence): the butterfly merge with its operands selected first (patch.py)
# against the committed two-call form (device tool, carry [".whl"]; one call, about 4 min). Verify
# the copy on the realizations whose merges branched most, then bench both trees one after the
# other, no peers, each with its own ceilings.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261204-butterfly-select
tree_copy select
python3 $HERE/patch.py /tmp/select maxfirst
IDS="softmax/online-registers softmax/online-block-reread softmax/pipelined-registers logsumexp/online-stream cross-entropy/online-stream layernorm/chan-registers"
timeout 150 python3 -m epldb --root /tmp/select verify $IDS --out $OUT/verify 2>&1 | tail -14
for tree in committed select; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 110 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | sort -k1,1 -k2,2 -k3
done
