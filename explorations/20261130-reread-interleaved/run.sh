#!/usr/bin/env bash
# Exploratory (not evidence): the one schedule difference left between rmsnorm/reread-fixed-cols and
# Inductor's Triton kernel at fp32 4 Ki and 16 Ki columns (../20261130-plain-vs-nc-loads,
# ../20261130-output-placement): Triton's second pass loads, scales and stores one vector at a
# time; ours issues all of a lane's reread loads first. A patched copy interleaves them (the COLS
# path of rewrite_row_segment only); both trees are benched in fp32, torch peers with the base
# (device tool, carry [".whl"]; one call, ~2 min).
set -u
source "$(dirname "$0")/../env.sh"
IDS="rmsnorm/reread-fixed-cols layernorm/welford-reread-fixed-cols"
A=/tmp/interleaved; rm -rf $A; mkdir -p $A; cp -r catalog kernels $A/
python3 - "$A/kernels/include/epl/row/rewrite.cuh" <<'PY'
import sys, pathlib
p = pathlib.Path(sys.argv[1]); s = p.read_text()
old = """      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (NV == UNROLL * LANES || lane + u * LANES < NV) v[u] = load_16B_aligned_hinted<HINT>(seg + (lane + u * LANES) * N);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c0 = (lane + u * LANES) * N;
        if (NV == UNROLL * LANES || lane + u * LANES < NV) store_16B_aligned(out + c0, rewrite_vec16<P>(v[u], p0, p1, c0, f));
      }"""
new = """#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c0 = (lane + u * LANES) * N;
        if (NV == UNROLL * LANES || lane + u * LANES < NV)
          store_16B_aligned(out + c0, rewrite_vec16<P>(load_16B_aligned_hinted<HINT>(seg + c0), p0, p1, c0, f));
      }"""
assert old in s, "rewrite.cuh changed: update the patch"
p.write_text(s.replace(old, new))
PY
sed -i 's/^status: verified/status: draft/' catalog/realizations/*/*.yaml $A/catalog/realizations/*/*.yaml  # copies only
python3 -m epldb bench $IDS --where dtype=float32 --out $OUT/base 2>&1 | tail -1
python3 -m epldb --root $A bench $IDS --where dtype=float32 --no-peers --out $OUT/interleaved 2>&1 | tail -1
python3 - "$OUT" <<'PY'
import csv, glob, sys, collections
out = sys.argv[1]
best = collections.defaultdict(dict)
for tag in ("base", "interleaved"):
    for f in glob.glob(f"{out}/{tag}/*/*bench*.csv"):
        for r in csv.DictReader(open(f)):
            if r["kind"] == "ceiling" or not r["gbps"] or r["status"] != "passed":
                continue
            k = (r["subject"], r["shape"])
            if float(r["gbps"]) > best[k].get(tag, (0.0, ""))[0]:
                best[k][tag] = (float(r["gbps"]), r["params"])
print(f"{'subject':38} {'shape':28} {'base':>6} {'interl':>6}  params (interleaved)")
for k in sorted(best):
    print(f"{k[0]:38} {k[1]:28} {best[k].get('base', (0,))[0]:6.0f} {best[k].get('interleaved', (0,))[0]:6.0f}  {best[k].get('interleaved', (0, ''))[1]}")
PY
