#!/usr/bin/env bash
# Exploratory (not evidence): the staged-pipelined norms over a grid of ordinary blocks, a row split
# over SPLIT of them and their states exchanged through global memory (patch.py, group_grid.cuh),
# against the committed cluster kernels and the staged ones. Device tool, carry [".whl"]; one call,
# about 6 minutes. Verifies the copy's two new records first: a wrong exchange hangs rather than
# fails, so each step has its own timeout.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261219-grid-split-rows
NEW="rmsnorm/staged-pipelined-split layernorm/two-pass-staged-pipelined-split"
OLD="rmsnorm/staged-pipelined rmsnorm/staged layernorm/two-pass-staged-pipelined layernorm/two-pass-staged"
tree_copy split && python3 $HERE/patch.py /tmp/split
timeout 200 python3 -m epldb --root /tmp/split verify $NEW --out $OUT/verify-split 2>&1 | grep -v "^verify \[" | tail -7
echo "=== bench committed"
timeout 150 python3 -m epldb bench $OLD --no-peers --out $OUT/bench-committed 2>&1 \
  | grep -v "^bench \[" | grep -E "cols=(65536|262144)" | grep -v "at-size" | tail -24
echo "=== bench split"
timeout 150 python3 -m epldb --root /tmp/split bench $NEW --no-peers --out $OUT/bench-split 2>&1 \
  | grep -v "^bench \[" | grep -E "cols=(65536|262144)" | grep -v "at-size" | tail -12
find "$OUT" -name '*.env.json' ! -path '*bench-committed*' -delete
