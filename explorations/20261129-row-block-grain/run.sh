#!/usr/bin/env bash
# Exploratory (not evidence): do the register row kernels gain from smaller blocks at short rows?
# The same kernels, with RowLanes' block of max(G, 256) threads changed to max(G, B), benchmarked
# in one call against the unchanged tree (run it from the device tool with carry [".whl"]).
set -u
source "$(dirname "$0")/../env.sh"
IDS="rmsnorm/registers layernorm/two-pass-registers softmax/two-reduction-registers log-softmax/two-reduction-registers"
W="--where group=8,32,128"
for B in 64 32; do
  A=/tmp/alt$B; rm -rf $A; mkdir -p $A; cp -r catalog kernels $A/
  sed -i "s/return g > 256 ? g : 256;/return g > $B ? g : $B;/" $A/kernels/include/epl/row/group.cuh
  grep -c "g > $B ? g : $B" $A/kernels/include/epl/row/group.cuh
  grep -rl "max(group, 256)" $A/catalog/realizations | xargs sed -i "s/max(group, 256)/max(group, $B)/g"
  sed -i 's/^status: verified/status: draft/' $A/catalog/realizations/*/*.yaml
  python3 -m epldb --root $A bench $IDS $W --no-peers --out $OUT/alt$B 2>&1 | tail -3
done
python3 -m epldb bench $IDS $W --no-peers --out $OUT/base 2>&1 | tail -3
python3 - "$OUT" <<'PY'
import csv, glob, sys, collections
out = sys.argv[1]
best = collections.defaultdict(dict)
for tag in ("base", "alt64", "alt32"):
    for f in glob.glob(f"{out}/{tag}/*/*bench*.csv"):
        for r in csv.DictReader(open(f)):
            if r["kind"] != "realization" or not r["gbps"]:
                continue
            k = (r["subject"], r["dtype"], r["shape"])
            best[k][tag] = max(best[k].get(tag, 0.0), float(r["gbps"]))
print(f"{'realization':36} {'dtype':9} {'shape':28} base  alt64 alt32")
for k in sorted(best):
    v = best[k]
    print(f"{k[0]:36} {k[1]:9} {k[2]:28} " + " ".join(f"{v.get(t, 0):5.0f}" for t in ("base", "alt64", "alt32")))
PY
