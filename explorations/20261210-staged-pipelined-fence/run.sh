#!/usr/bin/env bash
# Exploratory (not evidence): the staged-pipelined norms with and without the proxy fence that
# precedes each refill of a row buffer (patch: the fence line deleted in a tree copy). Device tool,
# carry [".whl"]; one call, about 2 minutes. Benches both trees, no peers, at stages 2 and 3 and
# clusters of 4 and 16 (the points that reach 64 Ki and 256 Ki columns).
set -u
source "$(dirname "$0")/../env.sh"
IDS="rmsnorm/staged-pipelined layernorm/two-pass-staged-pipelined"
WHERE="--where stages=2,3 --where cluster=4,16 --where items=32"
tree_copy nofence
sed -i '/fence_proxy_async_shared();  \/\/ the issuing warp/d' /tmp/nofence/kernels/include/epl/row/staged_pipelined.cuh
grep -c fence_proxy_async_shared /tmp/nofence/kernels/include/epl/row/staged_pipelined.cuh
timeout 100 python3 -m epldb --root /tmp/nofence verify $IDS --out $OUT/verify-nofence 2>&1 | tail -6
for tree in committed nofence; do
  root=/tmp/$tree; [ $tree = committed ] && root=$PWD
  echo "=== bench $tree"
  timeout 150 python3 -m epldb --root $root bench $IDS $WHERE --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | tail -14
done
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
