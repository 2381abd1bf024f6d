"""epldb.standings: the best realization against each peer, one bench run at a time, from evidence
rows made here (a DataFrame shaped as load_evidence's), over the repository's catalog."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import epldb
from repository import repository_catalog
from epldb.evidence import COLUMNS
from epldb.standings import Timed, standings, tally, verdict

CATALOG = repository_catalog()
FAST, SLOW = "softmax/two-reduction-registers", "softmax/online-registers"  # verified
DRAFT = "layernorm/sum-squares-registers"
SHAPE = json.dumps({"cols": 1024, "rows": 32768}, separators=(",", ":"))


def row(run: str, subject: str, gbps: float, *, kind: str = "realization", dtype: str = "float32",
        spread: float = 0.01, status: str = "passed", stale: bool = False, shape: str = SHAPE) -> dict:
    params = {"dtype": dtype} if kind == "peer" else {"group": 128, "items": 8, "dtype": dtype}
    ms = 100.0 / gbps
    cells = {c: "" for c in COLUMNS}
    cells.update(run=run, subject=subject, kind=kind, params=json.dumps(params, separators=(",", ":")), dtype=dtype,
                 shape=shape, status=status)
    cells.update(time_ms_median=ms, time_ms_p10=ms * (1 - spread), time_ms_p90=ms * (1 + spread), gbps=gbps)
    cells.update(device="nvidia-h200", file="evidence/nvidia-h200/x.csv", stale=stale)
    return cells


def frame(*rows: dict) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def test_the_fastest_verified_realization_meets_each_peer_of_its_run() -> None:
    df = frame(row("r2", FAST, 4000), row("r2", SLOW, 3900), row("r2", "row-softmax/torch-compile", 3500, kind="peer"),
               row("r2", "row-softmax/torch-eager", 3990, kind="peer"))
    out = standings(CATALOG, df, ids=["softmax"])
    assert [(s.best.subject, s.peer.subject, s.verdict) for s in out] == [
        (FAST, "row-softmax/torch-compile", "ahead"), (FAST, "row-softmax/torch-eager", "level")]
    assert out[0].margin == pytest.approx(4000 / 3500 - 1) and out[0].contract == "row-softmax"
    assert out[0].dtype == "float32" and out[0].problem == "{}" and out[0].run == "r2"


def test_only_the_newest_run_with_both_sides_counts_and_runs_never_mix() -> None:
    df = frame(row("r1", FAST, 3000), row("r1", "row-softmax/torch-compile", 3100, kind="peer"),
               row("r2", FAST, 4000),  # no peer in r2: r1 decides, with r1's own realization rate
               row("r0", "row-softmax/torch-compile", 1000, kind="peer"))
    out = standings(CATALOG, df)
    assert [(s.run, s.best.gbps, s.peer.gbps, s.verdict) for s in out] == [("r1", 3000, 3100, "behind")]


def test_a_newer_run_of_only_some_realizations_does_not_displace_a_fuller_run() -> None:
    compile_ = "row-softmax/torch-compile"
    df = frame(row("r1", FAST, 4000), row("r1", SLOW, 3900), row("r1", compile_, 3500, kind="peer"),
               row("r2", SLOW, 3950), row("r2", compile_, 3600, kind="peer"))  # r2 benched SLOW alone
    out = standings(CATALOG, df)
    assert [(s.run, s.best.subject, s.best.gbps, s.complete) for s in out] == [("r1", FAST, 4000, True)]
    # once a run times both again, it is the newest full one
    df = pd.concat([df, frame(row("r3", FAST, 4100), row("r3", SLOW, 3800), row("r3", compile_, 3700, kind="peer"))])
    assert [(s.run, s.best.gbps, s.complete) for s in standings(CATALOG, df)] == [("r3", 4100, True)]


def test_where_no_run_timed_every_realization_the_newest_with_both_sides_counts_as_partial() -> None:
    compile_ = "row-softmax/torch-compile"
    df = frame(row("r1", FAST, 4000), row("r1", compile_, 3500, kind="peer"),
               row("r2", SLOW, 3900), row("r2", compile_, 3600, kind="peer"))
    out = standings(CATALOG, df)
    assert [(s.run, s.best.subject, s.complete) for s in out] == [("r2", SLOW, False)]
    assert out[0].as_dict()["complete"] is False


def test_stale_failed_and_draft_rows_do_not_compete_unless_drafts_are_asked_for() -> None:
    peer = row("r1", "row-layernorm/torch-compile", 3000, kind="peer")
    df = frame(row("r1", DRAFT, 5000), row("r1", "layernorm/two-pass-registers", 3900, stale=True),
               row("r1", "layernorm/chan-registers", 4500, status="incorrect"), peer)
    assert standings(CATALOG, df) == []
    drafts = standings(CATALOG, df, drafts=True)
    assert [(s.best.subject, s.verdict) for s in drafts] == [(DRAFT, "ahead")]


def test_selection_by_operator_primitive_or_realization_id() -> None:
    df = frame(row("r1", FAST, 4000), row("r1", "row-softmax/torch-compile", 3500, kind="peer"),
               row("r1", "rmsnorm/registers", 4000), row("r1", "row-rmsnorm/torch-compile", 3500, kind="peer"))
    assert {s.contract for s in standings(CATALOG, df, ids=["rmsnorm"])} == {"row-rmsnorm"}
    assert {s.contract for s in standings(CATALOG, df, ids=[FAST])} == {"row-softmax"}
    assert {s.contract for s in standings(CATALOG, df)} == {"row-softmax", "row-rmsnorm"}


@pytest.mark.parametrize(("best", "peer", "expected"), [
    ((1.0, 1.1), (1.2, 1.3), "ahead"), ((1.2, 1.3), (1.0, 1.1), "behind"), ((1.0, 1.2), (1.1, 1.3), "level")])
def test_verdict_needs_the_p10_p90_ranges_apart(best: tuple, peer: tuple, expected: str) -> None:
    def timed(p10: float, p90: float) -> Timed:
        return Timed("s", "{}", 1.0, (p10 + p90) / 2, p10, p90)

    assert verdict(timed(*best), timed(*peer)) == expected


def test_tally_sets_the_best_against_the_strongest_peer_at_each_shape() -> None:
    other = json.dumps({"cols": 4096, "rows": 16384}, separators=(",", ":"))
    df = frame(row("r1", FAST, 4000), row("r1", "row-softmax/torch-compile", 3000, kind="peer"),
               row("r1", "row-softmax/torch-eager", 4010, kind="peer"),
               row("r1", FAST, 4000, shape=other), row("r1", "row-softmax/torch-compile", 3000, kind="peer", shape=other))
    (key, t), = tally(standings(CATALOG, df)).items()
    assert key == ("nvidia-h200", "row-softmax", "float32", "{}")
    assert (t.shapes, t.at_least_median, t.ahead, t.level, t.behind) == (2, 1, 1, 1, 0)


def ceiling(run: str, gbps: float) -> dict:
    cells = row(run, "ceiling/copy", gbps, kind="ceiling")
    cells.update(params="{}", dtype="", shape=json.dumps({"bytes": 2 << 30}, separators=(",", ":")))
    return cells


def test_the_best_is_set_against_its_own_runs_copy_ceiling() -> None:
    other = json.dumps({"cols": 4096, "rows": 16384}, separators=(",", ":"))
    df = frame(ceiling("r1", 4200), ceiling("r0", 3000),  # r0's ceiling must not leak into r1
               row("r1", FAST, 3900), row("r1", "row-softmax/torch-compile", 3000, kind="peer"),
               row("r1", FAST, 3700, shape=other), row("r1", "row-softmax/torch-compile", 3000, kind="peer", shape=other),
               row("r2", FAST, 4100, dtype="bfloat16"),
               row("r2", "row-softmax/torch-compile", 3000, kind="peer", dtype="bfloat16"))  # r2: no ceiling
    out = {(s.run, s.shape): s for s in standings(CATALOG, df)}
    assert out[("r1", SHAPE)].copy_gbps == 4200 and out[("r1", SHAPE)].of_copy == pytest.approx(3900 / 4200)
    assert out[("r2", SHAPE)].copy_gbps is None and out[("r2", SHAPE)].of_copy is None
    assert out[("r1", SHAPE)].as_dict()["of_copy"] == pytest.approx(3900 / 4200)
    counts = {key[2]: t.at_copy_share for key, t in tally(list(out.values())).items()}
    assert counts == {"float32": 1, "bfloat16": 0}  # 3900 / 4200 >= 0.9 > 3700 / 4200; no ceiling, no count


def test_the_size_matched_reference_of_the_contracts_ceiling_sets_the_at_size_share() -> None:
    # row() moves 100 MB (gbps x median ms x 1e6); row-softmax is judged by the copy ceiling.
    ref = row("r1", "ceiling/copy-at-size", 3800, kind="ceiling", shape=json.dumps({"bytes": 100_000_000 - 32}))
    off = row("r1", "ceiling/copy-at-size", 4100, kind="ceiling", shape=json.dumps({"bytes": 200_000_000}))
    read = row("r1", "ceiling/read-at-size", 3000, kind="ceiling", shape=json.dumps({"bytes": 100_000_000}))
    other_run = row("r0", "ceiling/copy-at-size", 1000, kind="ceiling", shape=json.dumps({"bytes": 100_000_000}))
    df = frame(row("r1", FAST, 3420), row("r1", "row-softmax/torch-compile", 3500, kind="peer"), ref, off, read,
               other_run, row("r1", "ceiling/copy", 4200, kind="ceiling", shape=json.dumps({"bytes": 1 << 31})))
    (s,) = standings(CATALOG, df, ids=["softmax"])
    assert s.at_size_gbps == 3800 and s.of_at_size == pytest.approx(0.9)
    assert [t.at_size_share for t in tally([s]).values()] == [1]  # 3420 / 3800 = 0.9: counted
    assert s.of_copy == pytest.approx(3420 / 4200) and s.as_dict()["of_at_size"] == pytest.approx(0.9)
    # Without a reference at the best's bytes in its own run, there is no share.
    (s,) = standings(CATALOG, frame(row("r1", FAST, 3420), row("r1", "row-softmax/torch-compile", 3500, kind="peer"),
                                    off, read, other_run), ids=["softmax"])
    assert s.at_size_gbps is None and s.of_at_size is None
