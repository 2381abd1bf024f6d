#!/usr/bin/env bash
# Exploratory (not evidence): float butterflies without the operand select (patch.py) against the
# committed d63183f form (device tool, carry [".whl"]; one call, about 6 min). Verify the copy on the
# realizations whose all-reduces are float Sum/Max, then bench both trees one after the other, no
# peers, each with its own ceilings. Both trees compile cold on a fresh machine: generous limits.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261206-commutative-butterfly
tree_copy commutes
python3 $HERE/patch.py /tmp/commutes
IDS="rmsnorm/reread online-max-accumulation/two-pass mergeable-statistics/two-pass layernorm/pipelined-cluster softmax/two-reduction-registers log-softmax/two-reduction-registers"
timeout 150 python3 -m epldb --root /tmp/commutes verify $IDS --out $OUT/verify 2>&1 | tail -14
for tree in committed commutes; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 180 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | grep -v "read-at-size" | tail -3
done
