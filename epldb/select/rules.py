"""Rules as data: the decision table the selection model implies for a subject on a device — regions
of dtype, problem and row length, each with the realization and points chosen there and the
record's reason.

The table is read off ``select`` itself over a grid of row lengths (quarter octaves from the
shortest to the longest measured row, one octave beyond each end): at each, the shape is the bench
shape of the nearest row length with its row length replaced and its row count scaled so the
element count stays that shape's. Consecutive grid points that pick the same realization form one
region; a region lists the points chosen inside it. The row count enters only through that
scaling: the model does not separate it from the row length (epldb.select.model), and the table
says which row count each region was read at. A matrix product is swept along m·n, m set for the
template's n, and its table gives n at each region's ends where a row contract gives the rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from epldb.select.choose import Selector
from epldb.select.observations import SelectError, Subject, axis_value, by_output_size, key

if TYPE_CHECKING:
    from epldb.catalog import Catalog

STEP = 0.25  # octaves between grid points
TIE = 1.03  # a region's realization holds on while predicted within 3% of the pick
MARGIN = 1.0  # octaves swept beyond the measured row lengths


@dataclass(frozen=True)
class Region:
    device: str
    dtype: str
    problem: dict[str, Any]
    axis: str  # the shape variable swept: cols, or n
    low: int  # first row length of the region (inclusive)
    high: int  # last one
    rows: tuple[int, int] | None  # the `beside` size at the two ends (None for a flat contract)
    realization: str
    points: tuple[dict[str, Any], ...]
    basis: tuple[str, ...]  # how the picks were made: measured, interpolated, extrapolated, rule
    reason: str
    beside: str = "rows"  # what ``rows`` holds: the row count, or a matrix product's n (its axis is m)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _grid(xs: list[float]) -> list[float]:
    lo, hi = math.floor(min(xs) - MARGIN), math.ceil(max(xs) + MARGIN)
    n = int(round((hi - lo) / STEP))
    return [lo + i * STEP for i in range(n + 1)]


def _even(subject: Subject, shape: Mapping[str, int]) -> bool:
    """Whether every size the sweep keeps from a template (all but the row length and the row count)
    is a multiple of 16: the table reads the common case, and a GEMM template of n = 4097 would
    carry its unaligned rows into a whole region (realizations whose TMA needs 16-byte strides do
    not serve it, so the slowest rung appeared to win from m = 4870 to 6887)."""
    kept = [v for k, v in shape.items() if k not in (subject.axis, "rows")]  # a GEMM's axis is m
    return all(v % 16 == 0 for v in kept)


def shape_at(subject: Subject, templates: list[dict[str, int]], x: float) -> dict[str, int]:
    """The shape of row length 2^x (rounded) modelled on the bench shape of the nearest row length
    (among the templates whose kept sizes are multiples of 16, where there are any)."""
    axis = subject.axis
    even = [s for s in templates if _even(subject, s)] or templates
    t = min(even, key=lambda s: abs(axis_value(subject, s) - x))
    # x is log2(m·n) for a matrix product: m of the template's n
    length = max(1, int(round(2 ** x / (t["n"] if by_output_size(subject) else 1))))
    shape = dict(t)
    shape[axis] = length
    if "rows" in shape and axis != "rows":
        shape["rows"] = max(1, int(round(t["rows"] * t[axis] / length)))
    return shape


def rules(catalog: "Catalog", subject_id: str, device: str | None = None,
          selector: Selector | None = None) -> list[Region]:
    selector = selector or Selector(catalog)
    subject = selector.subject(subject_id)
    obs = selector.observations(subject)
    if device is not None:
        obs = obs[obs["device"] == device]
    keys = list(subject.problem_keys())
    regions: list[Region] = []
    for group, rows in obs.groupby(["device", "dtype", *keys], sort=True):
        dev, dtype, *values = group if isinstance(group, tuple) else (group,)
        problem = dict(zip(keys, values))
        templates = list({key(s): s for s in rows["shape_d"]}.values())
        current: list[tuple[dict[str, int], Any]] = []
        for x in _grid(list(rows["x"])):
            shape = shape_at(subject, templates, x)
            try:
                choice = selector.select(subject.id, shape, str(dtype), str(dev), **problem)
            except SelectError:  # a row length no realization serves ends the region
                choice = None
            if current and choice is not None:
                choice = _hold(choice, current[0][1].realization)
            if current and (choice is None or choice.realization != current[-1][1].realization):
                regions.append(_region(selector, str(dev), str(dtype), problem, subject, current))
                current = []
            if choice is not None:
                current.append((shape, choice))
        if current:
            regions.append(_region(selector, str(dev), str(dtype), problem, subject, current))
    return regions


def _hold(choice: Any, realization: str) -> Any:
    """The choice, or its alternative of ``realization`` when that is predicted within TIE of it."""
    if choice.realization == realization or choice.predicted_ms is None:
        return choice
    for alt in choice.alternatives:
        if alt["realization"] == realization and alt["predicted_ms"] <= TIE * choice.predicted_ms:
            return replace(choice, realization=realization, point=alt["point"], predicted_ms=alt["predicted_ms"],
                           basis=alt["basis"])
    return choice


def _region(selector: Selector, device: str, dtype: str, problem: Mapping[str, Any], subject: Subject,
            picks: list[tuple[dict[str, int], Any]]) -> Region:
    first, last = picks[0], picks[-1]
    axis = subject.axis
    points = tuple({key(c.point): c.point for _, c in picks}.values())
    # A matrix product's regions are read along m·n with n from the template: m alone is no range
    # (one region may run from 73 x 128256 to 8372 x 8192), so n is given at the ends.
    beside = "n" if by_output_size(subject) else "rows"
    rows = (first[0][beside], last[0][beside]) if beside in first[0] and axis != beside else None
    return Region(device, dtype, dict(problem), axis, first[0][axis], last[0][axis], rows, first[1].realization,
                  points, tuple(dict.fromkeys(c.basis for _, c in picks)), first[1].reason, beside)
