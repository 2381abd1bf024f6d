#!/usr/bin/env bash
# Exploratory (not evidence): where does device-reduce/persistent-vectorized lose 3.6% to the
# read-at-size kernel at 256 MiB? The same kernel over a wider launch space than its record
# declares (blocks of 512 as the read kernel uses, unroll 16, 2 blocks per SM), float32 sum only;
# read-at-size is measured in the same run (device tool, carry [".whl"]).
set -u
source "$(dirname "$0")/../env.sh"
A=/tmp/wide; rm -rf $A; mkdir -p $A; cp -r catalog kernels $A/
R=$A/catalog/realizations/device-reduce/persistent-vectorized.yaml
sed -i -e 's/^  block: \[256\]$/  block: [256, 512]/' -e 's/^  unroll: \[4, 8\]$/  unroll: [4, 8, 16]/' \
       -e 's/^  per_sm: \[4, 8, 16, 32, 64\]$/  per_sm: [2, 4, 8]/' -e 's/^  op: \[sum, max\]$/  op: [sum]/' \
       -e 's/^  dtype: \[float32, bfloat16\]$/  dtype: [float32]/' $R
grep -A6 '^params:' $R
sed -i 's/^status: verified/status: draft/' $A/catalog/realizations/*/*.yaml
python3 -m epldb --root $A bench device-reduce/persistent-vectorized --no-peers --out $OUT/wide 2>&1 | tail -14
python3 - "$OUT" <<'PY'
import csv, glob, sys, json
out = sys.argv[1]
rows = [r for f in glob.glob(f"{out}/wide/*/*bench*.csv") for r in csv.DictReader(open(f))]
ras = {json.loads(r["shape"])["bytes"]: float(r["gbps"]) for r in rows if r["subject"] == "ceiling/read-at-size"}
by_n = {}
for r in rows:
    if r["kind"] == "realization" and r["gbps"]:
        by_n.setdefault(json.loads(r["shape"])["n"], []).append(r)
for n in sorted(by_n):  # the five fastest points of each size
    ref = next((v for b, v in ras.items() if abs(b - 4 * n) < 64), None)
    for r in sorted(by_n[n], key=lambda r: -float(r["gbps"]))[:5]:
        frac = float(r["gbps"]) / ref if ref else float("nan")
        print(f"n={n:>10} {float(r['gbps']):6.0f} GB/s  {frac:.3f} of read-at-size  {r['params']}")
PY
