"""How much boards of one GPU model differ: the same measurement taken on several boards.

A device folder holds one model (an H200), measured over many sessions on whichever board each
session was lent; the catalog, ``select`` and the site treat them as one device. What that hides is
the spread between boards: clocks under power and thermal limits, HBM stacks and the GPCs a board
has fused off differ. Here a *measurement* is a key of the evidence (kind, subject, parameter point,
dtype, shape and, for a realization, the source it measured), and a board's time for it is the
median over that board's fresh passing bench rows. For each measurement timed on two boards or more:
its spread (slowest board / fastest), and each board's time against the measurement's median over
boards (above 1: that board was slower).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

#: Row kinds whose times are compared between boards.
TIMED_KINDS = ("realization", "peer", "ceiling")
_KEY = ["kind", "subject", "params", "dtype", "shape", "source_hash"]


def board_of(env: Mapping[str, Any]) -> str:
    """A run's board from its environment record: the first eight hex digits of its GPU UUID, or ""
    where the run recorded none (older runs)."""
    return str(env.get("gpu_uuid") or "").removeprefix("GPU-")[:8]


@dataclass(frozen=True)
class Board:
    board: str
    runs: int
    measurements: int  # its measurements that another board also timed
    median_ratio: float  # its time / the measurement's median over boards, median over those
    low: float  # 10th percentile of that ratio
    high: float  # 90th percentile


@dataclass(frozen=True)
class BoardSpread:
    measurements: int  # timed on two boards or more
    median: float  # of slowest / fastest board
    p90: float
    worst: float
    worst_measurement: str  # "kind subject dtype shape params" of the worst
    boards: tuple[Board, ...]  # most compared first


def board_spread(ev: "pandas.DataFrame", boards: Mapping[str, str]) -> BoardSpread | None:
    """The spread between boards of one device's evidence ``ev`` (rows of epldb.evidence.table, one
    device), ``boards`` mapping run id → board (``board_of`` its environment). None when no
    measurement was timed on two boards."""
    import pandas as pd

    if not len(ev):
        return None
    rows = ev[ev["kind"].isin(TIMED_KINDS) & (ev["status"] == "passed") & ev["time_ms_median"].notna()]
    if "stale" in rows:
        rows = rows[~rows["stale"].astype(bool)]
    if "run_kind" in rows:
        rows = rows[rows["run_kind"] == "bench"]
    rows = rows.assign(board=rows["run"].map(boards).fillna(""))
    rows = rows[rows["board"] != ""]
    if not len(rows):
        return None
    key = rows[_KEY].astype(str).fillna("")
    times = pd.DataFrame({"key": key.agg("\x1f".join, axis=1), "board": rows["board"],
                          "time": rows["time_ms_median"].astype(float)})
    per = times.groupby(["key", "board"], sort=False)["time"].median().reset_index()
    counts = per.groupby("key")["board"].transform("size")
    per = per[counts >= 2]
    if not len(per):
        return None
    by_key = per.groupby("key")["time"]
    spread = by_key.max() / by_key.min()
    per = per.assign(ratio=per["time"] / by_key.transform("median"))
    worst = str(spread.idxmax())
    runs = rows.groupby("board")["run"].nunique()
    out = []
    for board, r in per.groupby("board"):
        q = r["ratio"].quantile([0.1, 0.5, 0.9])
        out.append(Board(str(board), int(runs.get(board, 0)), len(r), float(q[0.5]), float(q[0.1]), float(q[0.9])))
    out.sort(key=lambda b: (-b.measurements, b.board))
    kind, subject, params, dtype, shape, _ = worst.split("\x1f")
    return BoardSpread(len(spread), float(spread.median()), float(spread.quantile(0.9)), float(spread.max()),
                       " ".join(x for x in (kind, subject, dtype, shape, params) if x and x != "{}"), tuple(out))


__all__ = ["TIMED_KINDS", "Board", "BoardSpread", "board_of", "board_spread"]
