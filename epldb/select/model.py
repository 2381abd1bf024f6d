"""The model fitted on one realization's evidence at one (device, dtype, problem): what it predicts
at a shape, which parameter point it takes there, and the rows that prediction rests on.

At a measured shape the measured rows decide: the fastest in-domain point, at its measured time.
Elsewhere the prediction is made of two factors, both read from the evidence:

- the realization's **envelope**: its best time per byte at each measured row length, interpolated
  linearly in log time over ``x = log2(row length)`` between the two measured lengths around the
  query, and held at the nearest one beyond the measured range (``extrapolated``) — below the
  shortest measured length, times ``1 + BELOW_SHORTEST * d²`` at ``d`` octaves below it (10% at one,
  90% at three): a realization is benched from the lengths it was built for up (a cluster or a
  staged kernel serves long rows), and its fixed costs a row (the cluster's exchange, the staging's
  set-up) weigh more on every shorter one (experiment 0046-select-below-shortest);
- the point's **regret**: its time over the envelope where it was measured. A point measured on
  both sides of the query has its regret interpolated; where the axis alone sets how many blocks
  the launch has (a matrix product's output size sets its tile count, ``axis_sets_grid``), so does
  a point measured at the query's own axis value at another shape (128 x 4096 x 14336 for
  128 x 4096 x 4096: the same 64 x 64 tiles fill the SMs alike at any depth; experiment
  0052-select-same-output-size), while a row length measured at another row count is not the same
  launch (16 rows of 131072 fill 16 SMs where 256 fill them all). Any other point (measured on one side only,
  or never away from the query, as a register kernel sized for one row length) is rated by how far
  its parameters lie from the **trend** of the best points, since a regret measured at another row
  length does not carry over (a lane count that is right for 1 Ki columns idles lanes at 256): each
  numeric parameter of the points within ``NEAR_BEST`` of the best at each measured length (their
  mean log2 value), fitted as a line in log2 against x, and each other parameter taken from the
  nearest length's best. Its regret is ``1 + TREND_WEIGHT * distance`` (octaves for numeric
  parameters, ``MISMATCH`` per differing other one).

Predicted time = envelope(x) x regret x the bytes the contract moves at the query shape. The model
knows the row length and the bytes; it does not model the row count on its own (the bench shapes
hold the element count near constant, so fewer rows go with longer rows in the evidence): shapes
off that line are what ``epldb bench --shape`` adds to the evidence, and ``select --evaluate``
scores. Rows that are not 16-byte aligned are fitted apart (epldb.select.choose).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from epldb.select.observations import key

if TYPE_CHECKING:
    import pandas

TREND_WEIGHT = 0.02  # regret per unit of distance from the trend of the best points
NEAR_BEST = 1.03  # points this close to the best of a measured length shape the trend alike
MISMATCH = 3.0  # distance of a differing non-numeric parameter (a bool, a policy name)
UNKNOWN = 5.0  # distance of a numeric parameter the trend cannot read (zero, negative)
BELOW_SHORTEST = 0.1  # time added per squared octave below a realization's shortest measured row length


@dataclass(frozen=True)
class Prediction:
    """One realization's answer at one shape."""

    realization: str
    point: dict[str, Any]
    time_ms: float
    basis: str  # "measured" | "interpolated" | "extrapolated"
    rests_on: tuple[dict[str, Any], ...] = field(default=())  # evidence rows: run, params, shape, time_ms


def _interp(x: float, xs: Sequence[float], ys: Sequence[float]) -> float:
    """Piecewise-linear interpolation, held at the ends (xs ascending, distinct)."""
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    for i in range(1, len(xs)):
        if x <= xs[i]:
            t = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            return ys[i - 1] + t * (ys[i] - ys[i - 1])
    return ys[-1]


def _line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope and intercept; a flat line through the mean for one distinct x."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0, my
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def _row(rec: Mapping[str, Any]) -> dict[str, Any]:
    return {"run": rec["run"], "realization": rec["realization"], "params": rec["params"], "shape": rec["shape"],
            "time_ms": rec["time_ms"]}


class RealizationModel:
    """Fitted on the observations (epldb.select.observations) of one realization at one device,
    dtype and problem."""

    def __init__(self, realization: str, obs: "pandas.DataFrame | Sequence[Mapping[str, Any]]",
                 axis_sets_grid: bool = False) -> None:
        self.realization = realization
        self.axis_sets_grid = axis_sets_grid  # see the module's docstring: the regret at the query's own x
        records = obs.to_dict("records") if hasattr(obs, "to_dict") else list(obs)
        self.by_shape: dict[str, list[dict[str, Any]]] = {}
        for rec in records:
            self.by_shape.setdefault(rec["shape"], []).append(rec)
        best: dict[float, dict[str, Any]] = {}
        for rec in records:
            if rec["x"] not in best or rec["tpb"] < best[rec["x"]]["tpb"]:
                best[rec["x"]] = rec
        self.xs = sorted(best)
        self.best = [best[x] for x in self.xs]
        self.log_env = [math.log(b["tpb"]) for b in self.best]
        envelope = dict(zip(self.xs, (b["tpb"] for b in self.best)))
        self.points: dict[str, list[tuple[float, float]]] = {}
        for rec in records:
            self.points.setdefault(rec["params"], []).append((rec["x"], math.log(rec["tpb"] / envelope[rec["x"]])))
        for v in self.points.values():
            v.sort()

    @property
    def empty(self) -> bool:
        return not self.xs

    def envelope(self, x: float) -> float:
        return math.exp(_interp(x, self.xs, self.log_env))

    def regret(self, point: Mapping[str, Any], x: float, trend: Mapping[str, tuple[str, Any]]) -> float:
        seen = self.points.get(key(point))
        if seen and seen[0][0] < x < seen[-1][0]:
            return math.exp(_interp(x, [p[0] for p in seen], [p[1] for p in seen]))
        here = [p[1] for p in seen or () if p[0] == x]
        if here and self.axis_sets_grid:
            return math.exp(sum(here) / len(here))
        distance = 0.0
        for name, (kind, target) in trend.items():
            v = point.get(name)
            if kind == "numeric":
                distance += abs(math.log2(v) - target) if isinstance(v, (int, float)) and _numeric(v) else UNKNOWN
            elif v != target:
                distance += MISMATCH
        return 1 + TREND_WEIGHT * distance

    def trend(self, x: float, names: Sequence[str]) -> dict[str, tuple[str, Any]]:
        """Per parameter: ('numeric', fitted log2 value at x) or ('value', the nearest best's). At
        each measured length the points within ``NEAR_BEST`` of the best count alike (their mean log2
        value): near ties pick arbitrarily between points, and one noisy winner bends the line."""
        nearest = min(self.best, key=lambda b: abs(b["x"] - x))
        by_x: dict[float, list[dict[str, Any]]] = {}
        for recs in self.by_shape.values():
            for rec in recs:
                by_x.setdefault(rec["x"], []).append(rec)
        out: dict[str, tuple[str, Any]] = {}
        for name in names:
            ys: list[float] = []
            for bx, b in zip(self.xs, self.best):
                values = [r["point"].get(name) for r in by_x[bx] if r["tpb"] <= NEAR_BEST * b["tpb"]]
                if not all(_numeric(v) for v in values):
                    break
                ys.append(sum(math.log2(float(v)) for v in values) / len(values))
            if len(self.xs) > 1 and len(ys) == len(self.xs):
                slope, icept = _line(self.xs, ys)
                out[name] = ("numeric", slope * x + icept)
            else:
                out[name] = ("value", nearest["point"].get(name))
        return out

    def predict(self, shape_key: str, x: float, nbytes: int, points: Sequence[Mapping[str, Any]]) -> Prediction | None:
        """The prediction at a shape among ``points`` (those whose launch domain serves it); None when
        the realization has no evidence here or no point serves the shape."""
        if self.empty or not points:
            return None
        wanted = {key(p) for p in points}
        measured = [r for r in self.by_shape.get(shape_key, []) if r["params"] in wanted]
        if measured:
            fastest = min(measured, key=lambda r: r["time_ms"])
            return Prediction(self.realization, dict(fastest["point"]), fastest["time_ms"], "measured", (_row(fastest),))
        trend = self.trend(x, list(points[0]))
        scored = [(self.regret(p, x, trend), i, p) for i, p in enumerate(points)]
        regret, _, point = min(scored, key=lambda s: (s[0], s[1]))
        inside = self.xs[0] < x < self.xs[-1]
        below = [b for b in self.best if b["x"] <= x]
        above = [b for b in self.best if b["x"] >= x]
        around = ([below[-1]] if below else []) + ([above[0]] if above and (not below or above[0] is not below[-1]) else [])
        own = self.points.get(key(point), [])
        rests = [_row(b) for b in around]
        if own:
            near = min(own, key=lambda p: abs(p[0] - x))[0]
            rests += [_row(r) for recs in self.by_shape.values() for r in recs
                      if r["params"] == key(point) and r["x"] == near and _row(r) not in rests]
        time_ms = self.envelope(x) * regret * nbytes
        if x < self.xs[0]:
            time_ms *= 1 + BELOW_SHORTEST * (self.xs[0] - x) ** 2
        return Prediction(self.realization, dict(point), time_ms, "interpolated" if inside else "extrapolated",
                          tuple(rests))
