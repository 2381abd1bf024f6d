#!/usr/bin/env bash
# Exploratory (not evidence): layernorm/shifted-staged-pipelined with the block's own staged pivot
# and a Chan merge (patch.py, local_shift.cuh) against the committed kernel, in one call. Device
# tool, carry [".whl"]; about 6 minutes.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261221-local-pivot
ID=layernorm/shifted-staged-pipelined
tree_copy lp && python3 $HERE/patch.py /tmp/lp
timeout 200 python3 -m epldb --root /tmp/lp verify $ID --out $OUT/verify-local 2>&1 | grep -v "^verify \[" | tail -6
echo "=== bench committed"
timeout 150 python3 -m epldb bench $ID --no-peers --out $OUT/bench-committed 2>&1 \
  | grep -v "^bench \[" | grep -E "cols=(16384|65536|262144)" | grep -v "at-size" | tail -6
echo "=== bench local pivot"
timeout 150 python3 -m epldb --root /tmp/lp bench $ID --no-peers --out $OUT/bench-local 2>&1 \
  | grep -v "^bench \[" | grep -E "cols=(16384|65536|262144)" | grep -v "at-size" | tail -6
