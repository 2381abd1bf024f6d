#!/usr/bin/env bash
# Exploratory (not evidence): cross-entropy/online-stream with its target logit loaded before the
# fold (this tree, epl/row/stream.cuh uncommitted at the time) against the same record with
# stream.cuh as at HEAD (loaded after the all-reduce), on one board in one call (device tool,
# carry [".whl"], about 3 minutes): group 256 and 1024, every unroll, both dtypes, no peers; HEAD
# first and last.
set -u
source "$(dirname "$0")/../env.sh"
ID=cross-entropy/online-stream
tree_copy head && git show HEAD:kernels/include/epl/row/stream.cuh > /tmp/head/kernels/include/epl/row/stream.cuh
tree_copy pre
for t in /tmp/head /tmp/pre; do python3 -m epldb --root $t compile $ID --target sm_90a >/dev/null 2>&1 & done; wait
table() {
  python3 - "$1" <<'PY'
import csv, glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/*.csv"):
    for r in csv.DictReader(open(f)):
        if r["gbps"] and r["subject"] == "cross-entropy/online-stream":
            p, s = json.loads(r["params"]), json.loads(r["shape"])
            if s["cols"] >= 4096:
                print(sys.argv[1].rsplit("/", 1)[1], r["dtype"], f'{s["rows"]}x{s["cols"]}', p["group"], p["unroll"],
                      round(float(r["gbps"])), r["status"])
PY
}
W=(--where group=256,1024 --no-peers)
timeout 100 python3 -m epldb --root /tmp/head bench $ID "${W[@]}" --out $OUT/head1 >/dev/null 2>&1; table $OUT/head1
timeout 100 python3 -m epldb --root /tmp/pre bench $ID "${W[@]}" --out $OUT/pre >/dev/null 2>&1; table $OUT/pre
timeout 100 python3 -m epldb --root /tmp/head bench $ID "${W[@]}" --out $OUT/head2 >/dev/null 2>&1; table $OUT/head2
