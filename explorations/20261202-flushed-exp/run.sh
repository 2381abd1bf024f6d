#!/usr/bin/env bash
# Exploratory (not evidence): the online state's exponentials through ex2.approx.ftz (patch.py)
# against the committed __expf, on the four realizations whose bf16 points sit under 0.9 of copy
# with the state fold in their loop (device tool, carry [".whl"]; one call, about 3 min). The
# patched tree is a copy; verify it first, then bench the committed tree and the copy one after
# the other, each with its own ceilings, no peers.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261202-flushed-exp
B=/tmp/flushed; rm -rf $B; mkdir -p $B; cp -r catalog kernels $B/
python3 $HERE/patch.py $B
sed -i 's/^status: verified/status: draft/' $B/catalog/realizations/*/*.yaml  # the copy's evidence is elsewhere
IDS="logsumexp/online-stream cross-entropy/online-stream log-softmax/online-reread softmax/online-block-reread"
timeout 150 python3 -m epldb --root $B verify $IDS --out $OUT/verify 2>&1 | tail -12
for tree in committed flushed; do
  root=$PWD; [ $tree = flushed ] && root=$B
  echo "=== $tree"
  timeout 200 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | tail -52
done
