#!/usr/bin/env bash
# Exploratory (not evidence): what the row statistics' exchanges cost the staged-pipelined norms at
# 128 x 262144. Three trees on one board in one call (device tool, carry [".whl"], about 7
# minutes): the committed kernels; `nocluster` (the block all-reduce only, no cluster exchange);
# `noreduce` (no all-reduce at all). The two patched trees compute wrong rows: their bench rows
# fail the check and their times are the point. The committed tree runs first and last.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261224-exchange-bound
IDS="rmsnorm/staged-pipelined layernorm/shifted-staged-pipelined"
W=(--where cluster=16 --where slice=16384 --no-peers)
for m in nocluster noreduce; do tree_copy $m && python3 $HERE/patch.py /tmp/$m $m; done
for t in . /tmp/nocluster /tmp/noreduce; do  # build outside the timed runs, side by side
  python3 -m epldb --root $t compile $IDS --target sm_90a >/dev/null 2>&1 &
done; wait
best() {  # best point per (record, dtype) of the bench CSV under $1, passed or not
  python3 - "$1" <<'PY'
import csv, glob, json, sys
best = {}
for f in glob.glob(sys.argv[1] + "/*/*.csv"):
    for r in csv.DictReader(open(f)):
        if r["gbps"]:
            k = (r["subject"], r["dtype"])
            if float(r["gbps"]) > best.get(k, (0, ""))[0]:
                best[k] = (float(r["gbps"]), r["params"], r["status"], r["detail"][-40:])
for k in sorted(best):
    print(sys.argv[1].rsplit("/", 1)[1], *k, round(best[k][0]), *best[k][1:])
PY
}
timeout 120 python3 -m epldb bench $IDS "${W[@]}" --out $OUT/committed1 >/dev/null 2>&1; best $OUT/committed1
timeout 120 python3 -m epldb --root /tmp/nocluster bench $IDS "${W[@]}" --out $OUT/nocluster >/dev/null 2>&1; best $OUT/nocluster
timeout 120 python3 -m epldb --root /tmp/noreduce bench $IDS "${W[@]}" --out $OUT/noreduce >/dev/null 2>&1; best $OUT/noreduce
timeout 120 python3 -m epldb bench $IDS "${W[@]}" --out $OUT/committed2 >/dev/null 2>&1; best $OUT/committed2
