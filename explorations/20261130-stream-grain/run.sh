#!/usr/bin/env bash
# Exploratory (not evidence): logsumexp/online-stream and cross-entropy/online-stream read bf16
# short rows at 0.66-0.69 of copy (bench 20261130T005142Z-bench-63cb) where float32 reaches
# 0.87-0.96. Is it the grain? The unchanged kernels over a wider launch space than their records
# declare: groups of 2 and 4 threads (two and one shuffle levels, more vectors per thread) and
# unroll 2 and 8 beside 4 (device tool, carry [".whl"]).
set -u
source "$(dirname "$0")/../env.sh"
IDS="logsumexp/online-stream cross-entropy/online-stream"
A=/tmp/wide-stream; rm -rf $A; mkdir -p $A; cp -r catalog kernels $A/
for id in $IDS; do
  sed -i -e 's/^  group: \[8, 32, 256, 1024\]$/  group: [2, 4, 8, 32, 256, 1024]/' \
         -e 's/^  unroll: \[4\]$/  unroll: [2, 4, 8]/' $A/catalog/realizations/$id.yaml
  grep -A3 '^params:' $A/catalog/realizations/$id.yaml
done
sed -i 's/^status: verified/status: draft/' $A/catalog/realizations/*/*.yaml
python3 -m epldb --root $A bench $IDS --no-peers --out $OUT/stream 2>&1 | tail -3
python3 - "$OUT" <<'PY'
import csv, glob, sys, json, collections
out = sys.argv[1]
rows = [r for f in glob.glob(f"{out}/stream/*/*bench*.csv") for r in csv.DictReader(open(f))]
copy = next(float(r["gbps"]) for r in rows if r["subject"] == "ceiling/copy")
best = collections.defaultdict(list)
for r in rows:
    if r["kind"] == "realization" and r["gbps"] and r["status"] == "passed":
        best[(r["subject"], r["dtype"], r["shape"])].append((float(r["gbps"]), json.loads(r["params"])))
print(f"copy ceiling {copy:.0f} GB/s; per case the best point, then the best at the record's unroll 4 and group >= 8")
for k in sorted(best):
    pts = sorted(best[k], key=lambda t: -t[0])
    top = pts[0]
    rec = next((t for t in pts if t[1]["unroll"] == 4 and t[1]["group"] >= 8), (0, {}))
    print(f"{k[0]:30} {k[1]:9} {k[2]:28} {top[0]:5.0f} ({top[0] / copy:.2f}) g{top[1]['group']} u{top[1]['unroll']}"
          f"   record-space {rec[0]:5.0f} g{rec[1].get('group')} u{rec[1].get('unroll')}   {100 * (top[0] / rec[0] - 1):+.1f}%")
PY
