#!/usr/bin/env bash
# Exploratory (not evidence): the streamed online (m, l) fold with the flushing exponential, the
# next round's loads issued before the current round is visited, and the bf16 chunk max on packed
# pairs (patch.py), against the committed fold, on logsumexp/online-stream (device tool, carry
# [".whl"]; one call, about 5 min). Verify the full copy, then bench the trees one after the other,
# each with its own ceilings, no peers: bf16 for all, fp32 for the committed and prefetching trees.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261203-bf16-stream-fold
declare -A CHANGES=([flush]="flush" [flush-prefetch]="flush prefetch" [flush-hmax2]="flush hmax2"
                    [flush-prefetch-hmax2]="flush prefetch hmax2")
for t in "${!CHANGES[@]}"; do
  tree_copy $t
  python3 $HERE/patch.py /tmp/$t ${CHANGES[$t]}
done
ID=logsumexp/online-stream
timeout 70 python3 -m epldb --root /tmp/flush-prefetch-hmax2 verify $ID cross-entropy/online-stream --out $OUT/verify 2>&1 | tail -4
bench() {  # tree dtype
  local root=/tmp/$1; [ $1 = committed ] && root=$PWD
  echo "=== $1 $2"
  timeout 68 python3 -m epldb --root $root bench $ID --no-peers --where dtype=$2 --out $OUT/bench-$1-$2 2>&1 | grep -v "^bench \[" | tail -8
}
for t in committed flush flush-prefetch flush-hmax2 flush-prefetch-hmax2; do bench $t bfloat16; done
for t in committed flush-prefetch; do bench $t float32; done
