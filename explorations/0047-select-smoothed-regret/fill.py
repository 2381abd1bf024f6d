"""Experiment 0047, second probe: the row count through the launch grid. A point's time per byte
is divided by a fill factor phi^alpha, phi = min(1, CTAs x threads / (SMs x T)) of the point's
launch plan at the shape (what the evidence's shapes of few rows lack), both in fitting and at the
query; scored by select --evaluate on the committed evidence."""
import functools
import json
import math
import sys

import epldb
from epldb.launch import LaunchLimits, contract_arrays, plan_env, resolve_plan
from epldb.runner import contract_of
from epldb.select import model as M
from epldb.select.evaluate import evaluate

lab = epldb.load(lint=False)
LIM = LaunchLimits()
PARAMS = {"alpha": 0.0, "T": 2048}


@functools.lru_cache(maxsize=None)
def _phi(rid, shape_json, point_json, T):
    r = lab.realizations[rid]
    shape = json.loads(shape_json)
    point = json.loads(point_json)
    try:
        plan = resolve_plan(r, plan_env(shape, point), contract_arrays(contract_of(lab, r)), LIM,
                            lambda e, b, s: max(1, 2048 // max(1, b[0] * b[1] * b[2])))
    except Exception:
        return 1.0
    if not plan.ok or not plan.steps:
        return 1.0
    best = 0
    for s in plan.steps:
        best = max(best, math.prod(s.grid) * (math.prod(s.block) if T else 1))
    return min(1.0, best / (LIM.sms * (T or 1)))


def phi(rid, shape_key, point):
    return _phi(rid, shape_key, json.dumps(point, sort_keys=True), PARAMS["T"])


orig_init, orig_predict = M.RealizationModel.__init__, M.RealizationModel.predict


def init(self, realization, obs):
    records = obs.to_dict("records") if hasattr(obs, "to_dict") else list(obs)
    a = PARAMS["alpha"]
    if a:
        records = [{**r, "tpb": r["tpb"] * phi(realization, r["shape"], r["point"]) ** a} for r in records]
    orig_init(self, realization, records)


def predict(self, shape_key, x, nbytes, points):
    a = PARAMS["alpha"]
    if not a or self.empty or not points:
        return orig_predict(self, shape_key, x, nbytes, points)
    wanted = {M.key(p) for p in points}
    if any(r["params"] in wanted for r in self.by_shape.get(shape_key, [])):
        return orig_predict(self, shape_key, x, nbytes, points)
    trend = self.trend(x, list(points[0]))
    scored = [(self.regret(p, x, trend) / phi(self.realization, shape_key, p) ** a, i, p) for i, p in enumerate(points)]
    _, _, point = min(scored, key=lambda s: (s[0], s[1]))
    p = orig_predict(self, shape_key, x, nbytes, [point])
    return type(p)(p.realization, p.point, p.time_ms / phi(self.realization, shape_key, point) ** a, p.basis, p.rests_on)


M.RealizationModel.__init__, M.RealizationModel.predict = init, predict


def score(label):
    ev = evaluate(lab)
    print(f"{label:<28} near {ev.share_near:.4f}  within 15% {sum(c.ratio <= 1.15 for c in ev.cells) / len(ev.cells):.4f}"
          f"  worst {ev.worst:.2f}", flush=True)
    return ev


score("today")
for T in (0, 256):
    for a in (0.25, 0.5, 1.0):
        PARAMS.update(alpha=a, T=T)
        score(f"alpha={a} T={T}")
