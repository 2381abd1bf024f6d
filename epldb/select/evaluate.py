"""Selection measured, not assumed: leave one shape out of the committed evidence, select from the
rest, and score the pick with the hidden rows.

A cell is (device, subject, dtype, problem, shape). For each, the model is fitted without the
shape's rows, the candidates are the (realization, point) pairs timed at the shape, and the pick's
measured time there is set against the fastest measured there. The bar (issue 31): within
``NEAR`` of the best at ``SHARE_NEAR`` of the cells, within ``FAR`` at all of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from epldb.select.choose import Selector
from epldb.select.observations import SelectError, key

if TYPE_CHECKING:
    from epldb.catalog import Catalog

NEAR, SHARE_NEAR, FAR = 1.05, 0.90, 1.15


@dataclass(frozen=True)
class Cell:
    device: str
    subject: str
    dtype: str
    problem: dict[str, Any]
    shape: str
    pick: str  # realization
    pick_point: dict[str, Any]
    pick_ms: float
    best: str
    best_point: dict[str, Any]
    best_ms: float
    basis: str  # of the pick's prediction without the shape

    @property
    def ratio(self) -> float:
        return self.pick_ms / self.best_ms


@dataclass(frozen=True)
class Evaluation:
    cells: tuple[Cell, ...]

    @property
    def share_near(self) -> float:
        return sum(c.ratio <= NEAR for c in self.cells) / len(self.cells) if self.cells else 0.0

    @property
    def worst(self) -> float:
        return max((c.ratio for c in self.cells), default=1.0)

    @property
    def holds(self) -> bool:
        return bool(self.cells) and self.share_near >= SHARE_NEAR and self.worst <= FAR

    def as_dict(self) -> dict[str, Any]:
        return {"cells": [{**asdict(c), "ratio": c.ratio} for c in self.cells], "share_near": self.share_near,
                "worst": self.worst, "holds": self.holds, "bar": {"near": NEAR, "share_near": SHARE_NEAR, "far": FAR}}


def subjects_with_evidence(selector: Selector) -> list[str]:
    out = []
    lab = selector.lab
    for sid in sorted({r.subject for r in lab.realizations.values()}):
        try:
            s = selector.subject(sid)
        except SelectError:
            continue
        if len(selector.observations(s)):
            out.append(sid)
    return out


def evaluate(lab: "Catalog", subjects: Iterable[str] | None = None, selector: Selector | None = None) -> Evaluation:
    selector = selector or Selector(lab)
    cells: list[Cell] = []
    for sid in (list(subjects) if subjects is not None else subjects_with_evidence(selector)):
        subject = selector.subject(sid)
        obs = selector.observations(subject)
        keys = list(subject.problem_keys())
        for group, rows in obs.groupby(["device", "dtype", *keys], sort=True, dropna=False):
            device, dtype, *values = group if isinstance(group, tuple) else (group,)
            problem = dict(zip(keys, values))
            for shape_key, hidden in rows.groupby("shape", sort=True):
                records = hidden.to_dict("records")
                only: dict[str, list[dict[str, Any]]] = {}
                for rec in records:
                    only.setdefault(rec["realization"], []).append(rec["point"])
                preds = selector.predictions(subject, hidden["shape_d"].iloc[0], dtype, problem, device,
                                             exclude_shape=shape_key, only=only)
                if not preds:
                    continue  # no realization measured here was measured anywhere else
                pick = preds[0]
                timed = {(r["realization"], r["params"]): r for r in records}
                mine = timed[(pick.realization, key(pick.point))]
                best = min(timed.values(), key=lambda r: r["time_ms"])
                cells.append(Cell(device, sid, dtype, problem, shape_key, pick.realization, pick.point,
                                  float(mine["time_ms"]), best["realization"], best["point"], float(best["time_ms"]),
                                  pick.basis))
    return Evaluation(tuple(cells))
