#!/usr/bin/env bash
# Exploratory (not evidence): bf16 staged-pipelined norms with a 64 KiB slice a stage (patch.py),
# clusters of 8 at 128x262144 and of 2 at 1024x65536, against the committed points in the same
# run. Device tool, carry [".whl"]; one call, about 5 minutes.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261220-wide-slices
IDS="rmsnorm/staged-pipelined layernorm/two-pass-staged-pipelined"
tree_copy wide && python3 $HERE/patch.py /tmp/wide
W="--where dtype=bfloat16 --where block=512 --where stages=2"
timeout 150 python3 -m epldb --root /tmp/wide verify $IDS $W --where slice=32768 --out $OUT/verify-wide 2>&1 \
  | grep -v "^verify \[" | tail -5
echo "=== bench: the copy, every bf16 point at cluster 2, 8 and 16"
timeout 200 python3 -m epldb --root /tmp/wide bench $IDS --where dtype=bfloat16 --where cluster=2,8,16 --where stages=2,4 --no-peers \
  --out $OUT/bench-wide 2>&1 | grep -v "^bench \[" | grep -E "cols=(65536|262144)" | grep -v "at-size" | tail -12
echo "=== bench: layernorm/two-pass-staged, rmsnorm/staged (committed), bf16"
timeout 120 python3 -m epldb bench layernorm/two-pass-staged rmsnorm/staged --where dtype=bfloat16 --where cluster=4,8,16 \
  --no-peers --out $OUT/bench-staged 2>&1 | grep -v "^bench \[" | grep -E "cols=(65536|262144)" | grep -v "at-size" | tail -12
