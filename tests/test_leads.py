"""epldb.leads: which runs a realization's "Latest runs" are about, and what the paragraph says of
them, on a small invented evidence table over this repository's catalog (block-reduce, whose
contract's problem is dtype, op and tile)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import epldb
from epldb.leads import LeadError, Leads, Runs, commits_of, grid_note, pick_runs, short_commit

ME, OTHER = "block-reduce/warp-shuffle", "block-reduce/raking"
PEER = "block-tile-reduce/torch-eager"
N1, N2 = {"n": 1 << 20}, {"n": 1 << 26}
V1, B1, B2, B3 = ("20261101T000000Z-verify-aaaa", "20261102T000000Z-bench-bbbb", "20261103T000000Z-bench-cccc",
                  "20261104T000000Z-bench-dddd")


@pytest.fixture(scope="module")
def catalog() -> epldb.Catalog:
    return epldb.load(lint=False)


def row(run: str, subject: str, gbps: float | None, shape: dict = N1, *, kind: str = "realization",
        stale: bool = False, device: str = "nvidia-h200", status: str = "passed", **extra: object) -> dict:
    params = {"block": 256, "items": 4, "dtype": "float32", "op": "sum"}
    if kind == "peer":
        params = {"dtype": "float32", "op": "sum", "tile": 1024}
    if kind == "ceiling":
        params = {}
    t = None if gbps is None else 4 * next(iter(shape.values())) / gbps / 1e6
    return {"run": run, "subject": subject, "kind": kind, "params": json.dumps(params, sort_keys=True),
            "dtype": params.get("dtype", ""), "shape": json.dumps(shape), "status": status, "gbps": gbps,
            "time_ms_median": t, "time_ms_p10": None if t is None else t * 0.99,
            "time_ms_p90": None if t is None else t * 1.01, "err_max_rel": 1e-7, "deterministic": True,
            "detail": "", "device": device, "stale": stale, **extra}


def frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def test_the_newest_fresh_bench_run_is_chosen_over_a_newer_stale_one() -> None:
    df = frame([row(V1, ME, None), row(B1, ME, 1000.0), row(B2, ME, 1100.0), row(B3, ME, 1200.0, stale=True)])
    assert pick_runs(df, ME) == Runs(B2, V1, B1)
    assert pick_runs(df, OTHER) is None  # never timed
    assert pick_runs(df, ME, benches=[B1, B3]) == Runs(B3, V1, B2)  # named runs are taken stale or not
    with pytest.raises(LeadError):
        pick_runs(df, ME, benches=["20261105T000000Z-bench-eeee"])


def test_the_previous_run_has_a_cell_in_common_on_the_same_device() -> None:
    df = frame([row(B1, ME, 1000.0), row(B2, ME, 900.0, N2), row(B2, ME, 1050.0, device="other-gpu"),
                row(B3, ME, 1100.0)])
    assert pick_runs(df, ME) == Runs(B3, None, B1)


def test_the_previous_run_shares_a_cell_of_the_contracts_problem(catalog) -> None:
    other_tile = row(B2, ME, 1000.0, params=json.dumps({"block": 128, "items": 4, "dtype": "float32", "op": "sum"}))
    df = frame([row(B1, ME, 900.0), other_tile, row(B3, ME, 1100.0)])
    assert pick_runs(df, ME).previous == B2  # the same dtype and shape
    assert Leads(catalog, df).pick(catalog.realizations[ME]) == Runs(B3, None, B1)  # tile 512 is another problem


def test_an_experiments_run_is_no_latest_run() -> None:
    df = frame([row(B1, ME, 1000.0, run_kind="bench"), row(B2, ME, 1500.0, run_kind="experiment")])
    assert pick_runs(df, ME) == Runs(B1, None, None)


def test_the_lead_sets_the_bench_run_against_the_others_the_peer_and_the_previous_run(catalog) -> None:
    df = frame([row(V1, ME, None), row(V1, ME, None, N2),
                row(B1, ME, 1000.0), row(B1, OTHER, 990.0),
                row(B2, "ceiling/copy", 4000.0, {"bytes": 1 << 31}, kind="ceiling"),
                row(B2, ME, 1100.0), row(B2, OTHER, 1000.0), row(B2, PEER, 800.0, kind="peer"),
                row(B2, ME, 3000.0, N2), row(B2, OTHER, 3300.0, N2)])
    lead = Leads(catalog, df, {B2: "0123abc"}).of(catalog.realizations[ME], pick_runs(df, ME))
    assert lead.text() == (
        f"Bench {B2} at commit 0123abc (copy ceiling 4000 GB/s). Best block-reduce at fp32 op sum tile 1024 n = 1,048,576 "
        "1100 GB/s (0.28 of copy; block 256, items 4), +10.0% over raking (1000), +37.5% against torch-eager "
        "(800, ahead). Elsewhere: fp32 op sum tile 1024 n = 67,108,864 3000 (-9.1% to raking). "
        f"Against {B1} (an unrecorded commit) its best moved +10.0% (fp32 op sum tile 1024 n = 1,048,576). "
        f"Verify {V1} at an unrecorded commit: 2/2 fp32 checks passed, bitwise on repeat (max_rel 1.00e-07 fp32).")
    assert [c.best for c in lead.cells] == [True, False]
    assert lead.summary().startswith(f"Bench {B2} at commit 0123abc") and "Elsewhere" not in lead.summary()


def test_a_lead_of_stale_rows_says_so(catalog) -> None:
    df = frame([row(B1, ME, 1000.0, stale=True)])
    lead = Leads(catalog, df).latest(catalog.realizations[ME])
    assert lead is not None and lead.stale and "its kernel has changed since, so these rows are stale" in lead.text()


def test_commits_are_seven_hex_digits_or_unrecorded() -> None:
    assert short_commit("18855a28196a4f") == "18855a2"
    assert short_commit("HEAD\nunknown") == "" and short_commit(None) == "" and short_commit("0000000 <b>") == ""
    df = frame([row(B1, ME, 1.0, commit="f355a47aaaa"), row(B2, ME, 1.0, commit="")])
    assert commits_of(df) == {B1: "f355a47", B2: ""}
    assert commits_of(frame([row(B1, ME, 1.0)])) == {}


def test_a_resident_sized_grid_is_named_from_the_row_detail() -> None:
    detail = "step 0: grid 224 of 224 resident blocks; 4 input set(s) rotated, 258 MiB working set; 200 reps"
    assert grid_note(detail) == "grid 224 of 224 resident"
    assert grid_note("4 input set(s) rotated; 200 reps") == ""
    assert grid_note(float("nan")) == ""  # an empty detail cell reads as NaN
