#!/usr/bin/env bash
# Exploratory (not evidence): rmsnorm/cluster and layernorm/two-pass-cluster with clusters of 16
# (records edited in a tree copy; kernels as committed), verified, then benched beside the staged
# kernels at cluster 16 on one board in one call (device tool, carry [".whl"], about 4 minutes).
set -u
source "$(dirname "$0")/../env.sh"
tree_copy rc16
for r in rmsnorm/cluster layernorm/two-pass-cluster; do
  sed -i 's/^  cluster: \[4, 8\]$/  cluster: [4, 8, 16]/' /tmp/rc16/catalog/realizations/$r.yaml
done
IDS=(rmsnorm/cluster layernorm/two-pass-cluster)
timeout 200 python3 -m epldb --root /tmp/rc16 verify "${IDS[@]}" --where cluster=16 --out $OUT/verify 2>&1 | tail -8
timeout 300 python3 -m epldb --root /tmp/rc16 bench "${IDS[@]}" rmsnorm/staged layernorm/shifted-staged softmax/online-staged \
  --where cluster=16 --no-peers --out $OUT/bench 2>&1 | grep -E "cols=262144|evidence" | sort
python3 - "$OUT/bench" <<'PY'
import csv, glob, json, sys
rows = [r for f in glob.glob(sys.argv[1] + "/*/*.csv") for r in csv.DictReader(open(f))]
at = {r["shape"]: float(r["gbps"]) for r in rows if r["subject"] == "ceiling/copy-at-size" and r["gbps"]}
best = {}
for r in rows:
    s = json.loads(r["shape"]) if r["shape"].startswith("{") else {}
    if s.get("cols") == 262144 and r["gbps"] and not r["subject"].startswith("ceiling"):
        k = (r["subject"], r["dtype"])
        if k not in best or float(r["gbps"]) > best[k][0]:
            best[k] = (float(r["gbps"]), r["params"], r["status"], r["detail"][:60])
for (sub, dt), (g, p, st, det) in sorted(best.items()):
    print(f"{sub:32s} {dt:9s} {g:6.0f} {st:9s} {p} {det}")
print("copy-at-size:", sorted(round(v) for v in at.values()))
PY
