"""Probe: a 2-D envelope (row length and row count) for epldb.select's model, scored by --evaluate."""
import json, math, sys
import numpy as np
import epldb.select.model as M

HX, HY, LAM = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
SEC = ("rows", "batch", "m")

def sec(shape_d):
    for k in SEC:
        if k in shape_d:
            return math.log2(max(1, int(shape_d[k])))
    return None

orig_init = M.RealizationModel.__init__
def init(self, realization, obs):
    orig_init(self, realization, obs)
    best = {}
    for recs in self.by_shape.values():
        b = min(recs, key=lambda r: r["tpb"])
        best[b["shape"]] = (b["x"], sec(b["shape_d"]), math.log(b["tpb"]))
    self.s2 = list(best.values())
M.RealizationModel.__init__ = init

def env2(self, x, y):
    if y is None or any(s[1] is None for s in self.s2) or len(self.s2) < 2:
        return None
    X = np.array([[1.0, s[0] - x, s[1] - y] for s in self.s2])
    t = np.array([s[2] for s in self.s2])
    w = np.exp(-0.5 * ((X[:, 1] / HX) ** 2 + (X[:, 2] / HY) ** 2)) + 1e-12
    A = X.T @ (w[:, None] * X) + np.diag([1e-9, LAM, LAM])
    beta = np.linalg.solve(A, X.T @ (w * t))
    return math.exp(min(max(beta[0], t.min()), t.max()))

orig_predict = M.RealizationModel.predict
def predict(self, shape_key, x, nbytes, points):
    p = orig_predict(self, shape_key, x, nbytes, points)
    if p is None or p.basis == "measured":
        return p
    new = env2(self, x, sec(json.loads(shape_key)))
    if new is None:
        return p
    return M.Prediction(p.realization, p.point, p.time_ms * new / self.envelope(x), p.basis, p.rests_on)
M.RealizationModel.predict = predict

from epldb.catalog import load
from epldb.select.evaluate import evaluate
ev = evaluate(load("."))
far = sum(c.ratio > 1.15 for c in ev.cells)
print(f"HX={HX} HY={HY} LAM={LAM}: {len(ev.cells)} cells, {ev.share_near:.3f} within 5%, {1 - far/len(ev.cells):.3f} within 15%, worst {ev.worst:.2f}", flush=True)
if len(sys.argv) > 4:
    for c in sorted(ev.cells, key=lambda c: -c.ratio)[:int(sys.argv[4])]:
        print(f"  {c.device[:12]} {c.subject[:20]:20s} {c.dtype[:4]} {c.shape[:36]:36s} {c.pick.split('/')[-1][:22]:22s} {c.best.split('/')[-1][:22]:22s} {c.ratio:.2f}")
