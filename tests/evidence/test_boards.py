"""The spread between boards of one model (epldb/evidence/boards.py)."""

from __future__ import annotations

import pandas as pd

from epldb.evidence.boards import board_of, board_spread


def _row(run: str, subject: str, time_ms: float, *, kind: str = "realization", status: str = "passed",
         stale: bool = False, source: str = "s1") -> dict[str, object]:
    return {"run": run, "kind": kind, "subject": subject, "params": '{"block":256}', "dtype": "float32",
            "shape": '{"n":1000}', "source_hash": source if kind == "realization" else None, "status": status,
            "time_ms_median": time_ms, "stale": stale, "run_kind": "bench"}


def test_board_of_reads_the_uuid_and_is_empty_without_one() -> None:
    assert board_of({"gpu_uuid": "GPU-aba6f9c0-1234-5678"}) == "aba6f9c0"
    assert board_of({}) == "" and board_of({"gpu_uuid": None}) == ""


def test_the_spread_compares_one_measurement_across_boards_only() -> None:
    ev = pd.DataFrame([
        _row("r1", "a", 1.00), _row("r2", "a", 1.10), _row("r3", "a", 1.05),  # three boards
        _row("r1", "b", 2.0), _row("r2", "b", 2.0),
        _row("r1", "c", 5.0),  # one board only: not compared
        _row("r2", "a", 9.0, stale=True), _row("r2", "b", 9.0, status="incorrect"),  # never counted
        _row("r1", "d", 1.0, source="old"), _row("r2", "d", 3.0, source="new"),  # different kernels
        _row("r1", "copy", 1.0, kind="ceiling"), _row("r4", "copy", 1.2, kind="ceiling"),  # r4: no board
    ])
    spread = board_spread(ev, {"r1": "aaaa0001", "r2": "bbbb0002", "r3": "cccc0003", "r4": ""})
    assert spread is not None and spread.measurements == 2
    assert abs(spread.worst - 1.10) < 1e-9 and spread.worst_measurement.startswith("realization a float32")
    assert abs(spread.median - 1.05) < 1e-9
    by = {b.board: b for b in spread.boards}
    assert set(by) == {"aaaa0001", "bbbb0002", "cccc0003"}
    assert by["aaaa0001"].measurements == 2 and by["cccc0003"].measurements == 1
    # r2 is the slow board on "a" (1.10 / median 1.05), level on "b".
    assert by["bbbb0002"].high > 1.04 and by["aaaa0001"].low < 0.96


def test_no_spread_without_a_measurement_on_two_boards() -> None:
    ev = pd.DataFrame([_row("r1", "a", 1.0), _row("r2", "b", 1.0)])
    assert board_spread(ev, {"r1": "x", "r2": "y"}) is None
    assert board_spread(ev.iloc[0:0], {}) is None
