"""Experiment 0047: a point's regret between its measured row lengths, interpolated from its two
neighbours (today) or smoothed over every length it was measured at (weights by distance in
octaves), scored by select --evaluate on the committed evidence."""
import math
import sys

import epldb
from epldb.select import model as M
from epldb.select.evaluate import evaluate

lab = epldb.load(lint=False)
original = M.RealizationModel.regret


def smoothed(tau: float, kind: str):
    def regret(self, point, x, trend):
        seen = self.points.get(M.key(point))
        if seen and seen[0][0] < x < seen[-1][0]:
            if kind == "exp":
                ws = [math.exp(-abs(px - x) / tau) for px, _ in seen]
            else:
                ws = [1 / (1 + ((px - x) / tau) ** 2) for px, _ in seen]
            return math.exp(sum(w * r for w, (_, r) in zip(ws, seen)) / sum(ws))
        return original(self, point, x, trend)
    return regret


def score(label):
    ev = evaluate(lab)
    worst = sorted(ev.cells, key=lambda c: -c.ratio)[:3]
    print(f"{label:<28} near {ev.share_near:.4f}  within 15% {sum(c.ratio <= 1.15 for c in ev.cells) / len(ev.cells):.4f}"
          f"  worst {ev.worst:.2f}  cells {len(ev.cells)}", flush=True)


score("interpolated (today)")
for kind in ("exp", "cauchy"):
    for tau in (0.5, 1.0, 2.0, 4.0):
        M.RealizationModel.regret = smoothed(tau, kind)
        score(f"{kind} tau={tau}")
M.RealizationModel.regret = original
