import sys, json
from epldb.catalog import load
from epldb.select.choose import Selector
from epldb.select.observations import key
lab = load(".")
S = Selector(lab)
sid, dev, dtype, shape = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
subj = S.subject(sid)
obs = S.observations(subj)
rows = obs[(obs.device == dev) & (obs.dtype == dtype)]
hidden = rows[rows["shape"] == shape]
only = {}
for rec in hidden.to_dict("records"):
    only.setdefault(rec["realization"], []).append(rec["point"])
preds = S.predictions(subj, hidden["shape_d"].iloc[0], dtype, {}, dev, exclude_shape=shape, only=only)
timed = {(r["realization"], r["params"]): r["time_ms"] for r in hidden.to_dict("records")}
for p in preds:
    print(f"{p.realization:40s} pred {p.time_ms*1000:8.1f} us  meas {timed[(p.realization, key(p.point))]*1000:8.1f} {p.basis} {p.point}")
print("best measured per realization:")
for r, g in hidden.groupby("realization"):
    b = g.loc[g.time_ms.idxmin()]
    print(f"  {r:40s} {b.time_ms*1000:8.1f} us {b.params}")
print("realization shapes (tpb best, ps/byte):")
for r, g in rows.groupby("realization"):
    print(" ", r, sorted((s, round(gg.tpb.min()*1e9,2)) for s, gg in g.groupby("shape")))
