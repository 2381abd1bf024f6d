#!/usr/bin/env bash
# Exploratory (not evidence): where the L1 hints' gain at 64 Ki columns comes from. ncu on the three
# reread kernels at fp32 1024x65536, unchanged tree then L1-hinted copy (device tool, carry [".whl"]).
set -u
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
HERE=explorations/20261130-reread-l1-hints
A=/tmp/l1hinted; rm -rf $A; mkdir -p $A; cp -r catalog kernels evidence $A/
(cd $A && patch -p1 -s < "$OLDPWD/$HERE/l1hints.patch") || { echo "patch failed"; exit 1; }
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
for tag in base hinted; do
  root=$PWD; [ $tag = hinted ] && root=$A
  python3 $HERE/probe.py "$root" >/dev/null 2>&1  # build and cache first
  ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$M" --csv \
    python3 $HERE/probe.py "$root" > "$OUT/ncu-$tag.csv" 2> "$OUT/ncu-$tag.err"
done
python3 - "$OUT" <<'PY'
import csv, sys
for tag in ("base", "hinted"):
    rows = [r for r in csv.reader(open(f"{sys.argv[1]}/ncu-{tag}.csv")) if len(r) > 10]
    head, body = rows[0], rows[1:]
    i, k, m, v = (head.index(c) for c in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
    seen = {}
    for r in body:
        seen.setdefault(f"{tag:6} {r[k][:48]}", {})[r[m]] = r[v]
    for name, mm in seen.items():
        print(name, "  ".join(f"{key.split('__')[1][:24]}={mm[key]}" for key in sorted(mm)))
PY
