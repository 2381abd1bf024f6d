import sys, math
import epldb.select.model as M
K = float(sys.argv[1]); MODE = sys.argv[2] if len(sys.argv) > 2 else "lin"
orig = M.RealizationModel.predict
def predict(self, shape_key, x, nbytes, points):
    p = orig(self, shape_key, x, nbytes, points)
    if p is None or p.basis != "extrapolated":
        return p
    d = (self.xs[0] - x) if x < self.xs[0] else (x - self.xs[-1])
    f = (1 + K * d) if MODE == "lin" else (1 + K * d * d)
    if MODE == "below" and x > self.xs[0]:
        f = 1.0
    return M.Prediction(p.realization, p.point, p.time_ms * f, p.basis, p.rests_on)
M.RealizationModel.predict = predict
from epldb.catalog import load
from epldb.select.evaluate import evaluate
ev = evaluate(load("."))
far = sum(c.ratio > 1.15 for c in ev.cells)
print(f"K={K} {MODE}: {len(ev.cells)} cells, {ev.share_near:.3f} within 5%, {1 - far/len(ev.cells):.3f} within 15%, worst {ev.worst:.2f}", flush=True)
if len(sys.argv) > 3:
    for c in sorted(ev.cells, key=lambda c: -c.ratio)[:int(sys.argv[3])]:
        print(f"  {c.device[:12]} {c.subject[:20]:20s} {c.dtype[:4]} {c.shape[:36]:36s} {c.pick.split('/')[-1][:22]:22s} {c.best.split('/')[-1][:22]:22s} {c.ratio:.2f} {c.basis[:5]}")
