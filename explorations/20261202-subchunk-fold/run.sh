#!/usr/bin/env bash
# Exploratory (not evidence): the online state folded in sub-chunks of 16 floats (patch.py), alone
# and with the flushing exponential of ../20261202-flushed-exp, against the committed fold, on bf16
# logsumexp (device tool, carry [".whl"]; one call, about 3 min). Verify the combined copy, then
# bench the three trees one after the other, each with its own ceilings, no peers.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261202-subchunk-fold
for t in sub16 sub16-flushed; do
  rm -rf /tmp/$t; mkdir -p /tmp/$t; cp -r catalog kernels /tmp/$t/
  python3 $HERE/patch.py /tmp/$t 16
  sed -i 's/^status: verified/status: draft/' /tmp/$t/catalog/realizations/*/*.yaml
done
python3 explorations/20261202-flushed-exp/patch.py /tmp/sub16-flushed
ID=logsumexp/online-stream
timeout 90 python3 -m epldb --root /tmp/sub16-flushed verify $ID --out $OUT/verify 2>&1 | tail -4
for tree in committed sub16 sub16-flushed; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== $tree"
  timeout 90 python3 -m epldb --root $root bench $ID --no-peers --where dtype=bfloat16 --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | tail -9
done
