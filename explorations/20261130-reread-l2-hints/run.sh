#!/usr/bin/env bash
# Exploratory (not evidence): do L2 eviction hints help the rows streamed twice (epl/row/reread.cuh)?
# hints.patch gives the first read's 16-byte row loads createpolicy evict_last and the reread's
# evict_first (ld.global.nc.L1::no_allocate.L2::cache_hint), as torch.compile's Triton looped
# reductions do; parameters and stores keep the default. The three reread realizations are timed
# in one call on the patched copy and on the unchanged tree (device tool, carry [".whl"]).
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261130-reread-l2-hints
IDS="rmsnorm/reread log-softmax/online-reread layernorm/welford-reread"
A=/tmp/hinted; rm -rf $A; mkdir -p $A; cp -r catalog kernels $A/
(cd $A && patch -p1 -s < "$OLDPWD/$HERE/hints.patch") || { echo "patch failed"; exit 1; }
sed -i 's/^status: verified/status: draft/' $A/catalog/realizations/*/*.yaml
python3 -m epldb --root $A bench $IDS --no-peers --out $OUT/hinted 2>&1 | tail -2
python3 -m epldb bench $IDS --no-peers --out $OUT/base 2>&1 | tail -2
python3 - "$OUT" <<'PY'
import csv, glob, sys, collections
out = sys.argv[1]
best = collections.defaultdict(dict)
for tag in ("base", "hinted"):
    for f in glob.glob(f"{out}/{tag}/*/*bench*.csv"):
        for r in csv.DictReader(open(f)):
            if r["kind"] != "realization" or not r["gbps"] or r["status"] != "passed":
                continue
            k = (r["subject"], r["dtype"], r["shape"])
            if float(r["gbps"]) > best[k].get(tag, (0.0, ""))[0]:
                best[k][tag] = (float(r["gbps"]), r["params"])
print(f"{'realization':28} {'dtype':9} {'shape':28} base  hinted  gain   hinted best params")
for k in sorted(best):
    b, h = best[k].get("base", (0, "")), best[k].get("hinted", (0, ""))
    gain = f"{100 * (h[0] / b[0] - 1):+5.1f}%" if b[0] and h[0] else "   -  "
    print(f"{k[0]:28} {k[1]:9} {k[2]:28} {b[0]:5.0f} {h[0]:6.0f}  {gain}  {h[1]}")
PY
