"""Queries over the normalized evidence frame that the pages and charts share.

Rule used everywhere: the newest fresh row wins for one (device, subject, params, dtype, shape);
stale rows are shown in tables, flagged, and never chosen as "best".
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

KEY = ["device", "subject", "params_label", "dtype", "shape"]


def latest(df: "pd.DataFrame", *, fresh_only: bool = True) -> "pd.DataFrame":
    """The newest row per (device, subject, params, dtype, shape); fresh rows only by default."""
    rows = df[df["fresh"]] if fresh_only else df
    if rows.empty:
        return rows
    return rows.drop_duplicates(subset=KEY, keep="last")


def of_primitive(df: "pd.DataFrame", primitive: str) -> "pd.DataFrame":
    return df[df["primitive"] == primitive]


def of_subject(df: "pd.DataFrame", subject: str) -> "pd.DataFrame":
    return df[df["subject"] == subject]


def best_per_shape(rows: "pd.DataFrame") -> "pd.DataFrame":
    """For each (device, subject, dtype, shape): the passing row with the highest GB/s."""
    ok = rows[rows["passed"] & rows["gbps"].notna()]
    if ok.empty:
        return ok
    idx = ok.groupby(["device", "subject", "dtype", "variant", "shape"], sort=False)["gbps"].idxmax()
    return ok.loc[idx.values]


def ordered_shapes(rows: "pd.DataFrame") -> list[str]:
    """Shapes of the rows in sweep order: by their numbers in order ('{"cols": 256, "rows": 256Ki}'
    before '{"cols": 1Ki, "rows": 32Ki}': the first variable is the sweep's axis), then by element
    count; one-variable shapes simply by size."""
    keys = {(tuple(int(n) for n in re.findall(r"\d+", s)), int(e), s) for e, s in zip(rows["elements"], rows["shape"])}
    return [s for _, _, s in sorted(keys)]


def reference_shapes(rows: "pd.DataFrame", limit: int = 3) -> list[str]:
    """Up to ``limit`` shapes that sum up a sweep: the smallest, the middle and the largest."""
    shapes = ordered_shapes(rows)
    if len(shapes) <= limit:
        return shapes
    picks = sorted({round(i * (len(shapes) - 1) / (limit - 1)) for i in range(limit)})
    return [shapes[i] for i in picks]


def problems(rows: "pd.DataFrame", order: dict[str, list[object]] | None = None) -> list[tuple[str, str]]:
    """The (dtype, variant) problems that realization and peer rows measure, the main one first:
    most rows, then the values declared first in the realizations' parameter lists (``order``:
    parameter → values, e.g. op → [sum, max]), then float32, then by name. Ceiling rows are no
    problem of their own."""
    counts: dict[tuple[str, str], int] = {}
    measured = rows[rows["kind"] != "ceiling"]
    for d, v in zip(measured["dtype"], measured["variant"]):
        counts[(d, v)] = counts.get((d, v), 0) + 1
    order = order or {}

    def declared(p: tuple[str, str]) -> tuple[int, ...]:
        ranks = [_rank(order.get("dtype"), p[0])]
        for part in p[1].split():
            name, _, value = part.partition("=")
            ranks.append(_rank(order.get(name), value))
        return tuple(ranks)

    return sorted(counts, key=lambda p: (-counts[p], declared(p), p[0] != "float32", p))


def _rank(values: list[object] | None, value: str) -> int:
    if not values:
        return 0
    spelled = [str(v) for v in values]
    return spelled.index(value) if value in spelled else len(spelled)


def param_order(realizations: "list") -> dict[str, list[object]]:
    """Parameter → its values in declaration order, over ``realizations`` (first seen first)."""
    out: dict[str, list[object]] = {}
    for r in realizations:
        for name, values in r.params.items():
            seen = out.setdefault(name, [])
            seen.extend(v for v in values if v not in seen)
    return out


def of_problem(rows: "pd.DataFrame", problem: tuple[str, str]) -> "pd.DataFrame":
    return rows[(rows["dtype"] == problem[0]) & (rows["variant"] == problem[1])]


def problem_label(problem: tuple[str, str]) -> str:
    return " · ".join(x for x in problem if x)


def ceiling_at(rows: "pd.DataFrame", device: str, dtype: str, shape: str) -> float | None:
    """The bandwidth ceiling that applies at one point: the one the rows' own fraction of the
    ceiling implies (gbps / frac_ceiling, which names the right ceiling for the contract), else
    the highest ceiling row measured at that shape."""
    return Ceilings(rows).at(device, dtype, shape)


class Ceilings:
    """:func:`ceiling_at` for every point of ``rows`` at once (two group-bys), for pages that ask at
    many shapes."""

    def __init__(self, rows: "pd.DataFrame") -> None:
        measured = rows[(rows["kind"] != "ceiling") & rows["ceiling_gbps"].notna()]
        implied = measured.groupby(["device", "dtype", "shape"], observed=True)["ceiling_gbps"].median()
        self._implied = {tuple(str(x) for x in k): float(v) for k, v in implied.items()}
        ceil = rows[(rows["kind"] == "ceiling") & rows["gbps"].notna()]
        highest = ceil.groupby(["device", "shape"], observed=True)["gbps"].max()
        self._measured = {tuple(str(x) for x in k): float(v) for k, v in highest.items()}

    def at(self, device: str, dtype: str, shape: str) -> float | None:
        implied = self._implied.get((device, dtype, shape))
        return implied if implied is not None else self._measured.get((device, shape))


def at_size(rows: "pd.DataFrame", evidence: "pd.DataFrame", device: str, shape: str, ceiling: str) -> float | None:
    """The size-matched reference of ``ceiling`` ('read' or 'copy') at this shape's own byte count
    (``ceiling/read-at-size``: the read-only kernel; ``ceiling/copy-at-size``: cudaMemcpyAsync of
    half the bytes each way; rows of ``evidence``, all runs') in the latest run that has both timed
    ``rows`` at the shape and such a reference: what one launch reaches at that size, beside the
    device ceiling measured at 1-2 GiB. Matched by bytes: a timed row's bytes moved are its GB/s
    times its median time, equal to the reference's (rounded down to 16 bytes, each half for the
    copy) up to the six significant digits the evidence keeps in each factor (within 1e-5)."""
    return at_size_of(rows, size_references(evidence, device, ceiling), device, shape)


def size_references(evidence: "pd.DataFrame", device: str, ceiling: str) -> "pd.DataFrame":
    """The rows of ``ceiling``'s size-matched reference on ``device``, for :func:`at_size_of`."""
    return evidence[(evidence["device"] == device) & (evidence["subject"] == f"ceiling/{ceiling}-at-size")
                    & evidence["gbps"].notna()]


def at_size_of(rows: "pd.DataFrame", refs: "pd.DataFrame", device: str, shape: str) -> float | None:
    """:func:`at_size` with the reference rows selected once (:func:`size_references`)."""
    at = rows[(rows["device"] == device) & (rows["shape"] == shape) & (rows["kind"] != "ceiling")
              & rows["gbps"].notna() & rows["time_ms_median"].notna()]
    if at.empty or refs.empty:
        return None
    for run in sorted(set(at["run"]) & set(refs["run"]), reverse=True):
        timed = at[at["run"] == run]
        moved = float((timed["gbps"] * timed["time_ms_median"] * 1e6).median())
        in_run = refs[refs["run"] == run]
        candidates = [(abs(json.loads(sh).get("bytes", 0) - moved), float(g)) for sh, g in zip(in_run["shape"], in_run["gbps"])]
        near = [c for c in candidates if moved > 0 and c[0] <= 32 + 1e-5 * moved]
        if near:
            return min(near)[1]
    return None


def named_ceilings(rows: "pd.DataFrame", device: str) -> list[tuple[str, float]]:
    """The device's measured ceilings that name one, as (label, GB/s), e.g. ('read', 4641.0): every
    ceiling row but the size-matched references, which never name a ceiling."""
    c = rows[(rows["device"] == device) & (rows["kind"] == "ceiling") & rows["gbps"].notna()
             & ~rows["subject"].str.endswith("-at-size")]
    return [(str(label), float(g)) for label, g in zip(c["subject_label"], c["gbps"])]


def ceiling_name(ceilings: Sequence[tuple[str, float]], value: float) -> str:
    """The name of the first of ``ceilings`` (:func:`named_ceilings`) within 1% of ``value``."""
    for label, g in ceilings:
        if abs(g - value) <= 0.01 * value:
            return label
    return ""


@dataclass(frozen=True)
class Headline:
    primitive: str
    device: str
    problem: tuple[str, str]
    shape: str
    best: "pd.Series"
    peer: "pd.Series | None"
    ceiling: float | None


def headline(df: "pd.DataFrame", primitive: str, order: dict[str, list[object]] | None = None) -> Headline | None:
    """Best realization vs best peer at the primitive's largest measured shape (main dtype)."""
    rows = latest(of_primitive(df, primitive))
    real = rows[rows["kind"] == "realization"]
    best_real = best_per_shape(real)
    if best_real.empty:
        return None
    problem = problems(best_real, order)[0]
    best_real = of_problem(best_real, problem)
    shape = ordered_shapes(best_real)[-1]
    at = best_real[best_real["shape"] == shape]
    best = at.loc[at["gbps"].idxmax()]
    device = str(best["device"])
    peers = best_per_shape(of_problem(rows[(rows["kind"] == "peer") & (rows["device"] == device)
                                           & (rows["shape"] == shape)], problem))
    peer = peers.loc[peers["gbps"].idxmax()] if not peers.empty else None
    return Headline(primitive, device, problem, shape, best, peer, ceiling_at(rows, device, problem[0], shape))
