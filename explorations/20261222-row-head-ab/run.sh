#!/usr/bin/env bash
# Exploratory (not evidence): layernorm/shifted-staged-pipelined's pivot three ways on one board, in
# one call (device tool, carry [".whl"], about 6 minutes): the committed kernel (the row's first 16
# bytes staged beside its slice), the same with the staging off (the pivot a global load at each
# fold, as before commit 3104208), and 20261221-local-pivot's block-local pivot with a Chan merge.
# The committed kernel runs first and last, to show the board's drift.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261222-row-head-ab
ID=layernorm/shifted-staged-pipelined
W=(--where cluster=4,8,16 --no-peers)
tree_copy nohead && sed -i 's/static constexpr bool kReadsRowHead = true;/static constexpr bool kReadsRowHead = false;/' \
  /tmp/nohead/kernels/include/epl/row/shifted_sums.cuh && grep -c "kReadsRowHead = false" /tmp/nohead/kernels/include/epl/row/shifted_sums.cuh
tree_copy local && python3 explorations/20261221-local-pivot/patch.py /tmp/local
( python3 -m epldb --root /tmp/nohead compile $ID --target sm_90a >/dev/null 2>&1 & \
  python3 -m epldb --root /tmp/local compile $ID --target sm_90a >/dev/null 2>&1 & \
  python3 -m epldb compile $ID --target sm_90a >/dev/null 2>&1 & wait )
best() {  # best point per cell of the bench CSV under $1
  python3 - "$1" <<'PY'
import csv, glob, json, sys
best = {}
for r in csv.DictReader(open(glob.glob(sys.argv[1] + "/*/*.csv")[0])):
    if r["gbps"] and json.loads(r["shape"])["cols"] >= 16384:
        k = (r["dtype"], json.loads(r["shape"])["cols"])
        if float(r["gbps"]) > best.get(k, (0, ""))[0]:
            best[k] = (float(r["gbps"]), r["params"])
for k in sorted(best):
    print(sys.argv[1].rsplit("/", 1)[1], *k, round(best[k][0]), best[k][1])
PY
}
timeout 100 python3 -m epldb bench $ID "${W[@]}" --out $OUT/head1 >/dev/null 2>&1; best $OUT/head1
timeout 100 python3 -m epldb --root /tmp/nohead bench $ID "${W[@]}" --out $OUT/nohead >/dev/null 2>&1; best $OUT/nohead
timeout 100 python3 -m epldb --root /tmp/local bench $ID "${W[@]}" --out $OUT/local >/dev/null 2>&1; best $OUT/local
timeout 100 python3 -m epldb bench $ID "${W[@]}" --out $OUT/head2 >/dev/null 2>&1; best $OUT/head2
