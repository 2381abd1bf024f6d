#!/usr/bin/env bash
# Exploratory (not evidence): the one-pass stream records at bf16 (cross-entropy, logsumexp), group
# 256 and 512, every unroll, every shape, in two tree copies on one board (device tool, carry
# [".whl"], about 4 minutes): `plain` (the committed kernels, group 512 declared) and `bounded`
# (the kernels ask for 2048 threads an SM). The committed tree runs first and last at group 256.
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261226-stream-residency
IDS="cross-entropy/online-stream logsumexp/online-stream"
tree_copy plain && python3 $HERE/patch.py /tmp/plain
tree_copy bounded && python3 $HERE/patch.py /tmp/bounded bounded
for t in . /tmp/plain /tmp/bounded; do
  python3 -m epldb --root $t compile $IDS --target sm_90a >/dev/null 2>&1 &
done; wait
table() {  # GB/s per (record, shape, group, unroll) of the bench CSV under $1
  python3 - "$1" <<'PY'
import csv, glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/*.csv"):
    for r in csv.DictReader(open(f)):
        if r["gbps"] and "/" in r["subject"] and not r["subject"].startswith("ceiling"):
            p, s = json.loads(r["params"]), json.loads(r["shape"])
            print(sys.argv[1].rsplit("/", 1)[1], r["subject"], f'{s["rows"]}x{s["cols"]}', p["group"], p["unroll"],
                  round(float(r["gbps"])), r["status"])
        elif r["subject"] == "ceiling/read-at-size":
            print(sys.argv[1].rsplit("/", 1)[1], r["subject"], r["shape"], round(float(r["gbps"])))
PY
}
W=(--where dtype=bfloat16 --no-peers)
timeout 100 python3 -m epldb bench $IDS "${W[@]}" --where group=256 --out $OUT/committed1 >/dev/null 2>&1; table $OUT/committed1
timeout 130 python3 -m epldb --root /tmp/plain bench $IDS "${W[@]}" --where group=256,512 --out $OUT/plain >/dev/null 2>&1; table $OUT/plain
timeout 130 python3 -m epldb --root /tmp/bounded bench $IDS "${W[@]}" --where group=256,512 --out $OUT/bounded >/dev/null 2>&1; table $OUT/bounded
timeout 100 python3 -m epldb bench $IDS "${W[@]}" --where group=256 --out $OUT/committed2 >/dev/null 2>&1; table $OUT/committed2
