#!/usr/bin/env bash
# Exploratory (not evidence): float butterflies without the operand select (patch.py) against the
# committed d63183f form, and the same with the two-reduction kernels' vector entry bounded to 64
# registers (patch.py TREE bound). Device tool, carry [".whl"]; one call, about 8 min. Verify the
# copies on the realizations whose all-reduces are float Sum/Max, then bench the trees one after the
# other, no peers, each with its own ceilings. The trees compile cold on a fresh machine: generous
# limits. Only about 8 files come back from a call: one env.json is kept, the CSVs all.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261206-commutative-butterfly
tree_copy commutes
python3 $HERE/patch.py /tmp/commutes
tree_copy bound
python3 $HERE/patch.py /tmp/bound bound
IDS="rmsnorm/reread online-max-accumulation/two-pass mergeable-statistics/two-pass layernorm/pipelined-cluster softmax/two-reduction-registers log-softmax/two-reduction-registers"
timeout 150 python3 -m epldb --root /tmp/commutes verify $IDS --out $OUT/verify 2>&1 | tail -14
TWO="softmax/two-reduction-registers log-softmax/two-reduction-registers"
timeout 60 python3 -m epldb --root /tmp/bound verify $TWO --out $OUT/verify-bound 2>&1 | tail -6
for tree in committed commutes; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 180 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | grep -v "read-at-size" | tail -3
done
echo "=== bench bound"
timeout 120 python3 -m epldb --root /tmp/bound bench $TWO --no-peers --out $OUT/bench-bound 2>&1 | grep -v "^bench \[" | grep -v "read-at-size" | tail -3
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
