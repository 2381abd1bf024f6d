import math
from epldb.select.model import RealizationModel, Prediction
from epldb.select.observations import key
ITEM = {"float32": 4, "bfloat16": 2}
MODE = "all"
def row_threads(rz, p):
    name = rz.split("/")[-1]
    if "group" in p and isinstance(p["group"], int): g = p["group"]
    elif "warp" in name: g = 32
    elif "block" in p and ("block" in name or "reread" in name or "staged" in name or "cluster" in name):
        g = p["block"]
    else: return None
    if "cluster" in p and isinstance(p["cluster"], int): g *= p["cluster"]
    if "cluster_blocks" in p: g *= p["cluster_blocks"]
    return g
def factor(rz, p, cols):
    g = row_threads(rz, p)
    if g is None or cols is None: return 1.0
    v = 16 // ITEM.get(p.get("dtype", "float32"), 4)
    return max(1.0, g * v / cols)
class M(RealizationModel):
    def __init__(self, realization, obs, axis_sets_grid=False):
        recs = obs.to_dict("records") if hasattr(obs, "to_dict") else list(obs)
        out = []
        for r in recs:
            r = dict(r)
            cols = r["shape_d"].get("cols") if isinstance(r.get("shape_d"), dict) else None
            r["tpb"] = r["tpb"] / factor(realization, r["point"], cols)
            out.append(r)
        super().__init__(realization, out, axis_sets_grid)
    def predict(self, shape_key, x, nbytes, points):
        import json
        cols = json.loads(shape_key).get("cols") if shape_key.startswith("{") else None
        if self.empty or not points: return None
        # choose by scaled prediction: evaluate each point alone
        best = None
        for p in points:
            q = super().predict(shape_key, x, nbytes, [p])
            if q is None: continue
            if q.basis == "measured":
                t = q.time_ms
            else:
                t = q.time_ms * factor(self.realization, p, cols)
            if best is None or t < best[0]: best = (t, q)
        if best is None: return None
        t, q = best
        return Prediction(q.realization, q.point, t, q.basis, q.rests_on)
