"""Evidence files: whole-line atomic appends to the journal, sealing, interrupted runs, resume, the tidy
table, staleness, the lint rule."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

import epldb
from epldb.compile.hashing import source_hash
from epldb.evidence import (
    COLUMNS,
    EvidenceWriter,
    Row,
    evidence_problems,
    find_run,
    load_evidence,
    new_run_id,
    newest_fresh,
    read_journal,
    read_sealed,
)
from realization_fixtures import make_repo

RID = "tile-sum/naive"


def row(status: str = "passed", n: int = 31, h: str = "", **kw) -> Row:
    return Row(RID, "realization", {"op": "sum", "block": 128, "items": 1, "dtype": "float32"}, "float32", {"n": n},
               status, err_max_rel=1.5e-7, err_rel_l2=3.25e-8, deterministic=True, source_hash=h, target="sm_90",
               nvrtc="13.0", **kw)


def test_run_ids_sort_by_time() -> None:
    a = new_run_id("verify", datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    b = new_run_id("bench", datetime(2026, 1, 2, 3, 4, 6, tzinfo=timezone.utc))
    assert a.startswith("20260102T030405Z-verify-") and a < b


def test_every_append_leaves_a_valid_file(tmp_path: Path) -> None:
    w = EvidenceWriter(tmp_path / "nvidia-h200", "r1", {"gpu": "NVIDIA H200"}).open()
    assert read_journal(w.csv_path) == []
    assert w.csv_path.read_text().splitlines() == [",".join(COLUMNS)]
    for i, n in enumerate([1, 31, 4097]):
        assert w.append(row(n=n))
        rows = read_journal(w.csv_path)  # a reader at any moment sees whole rows only
        assert len(rows) == i + 1 and rows[-1]["shape"] == f"{{\"n\":{n}}}"
    assert not w.append(row(n=31))  # one row per key and run
    journal = read_journal(w.csv_path)
    w.close()
    assert not w.csv_path.exists() and read_sealed(w.sealed_path) == journal  # sealed, cell for cell
    first = read_sealed(w.sealed_path)[0]
    assert first["run"] == "r1"
    assert first["params"] == '{"block":128,"dtype":"float32","items":1,"op":"sum"}'  # sorted keys
    assert (first["err_max_rel"], first["deterministic"], first["time_ms_median"]) == ("1.5e-07", "true", "")
    assert json.loads(w.env_path.read_text()) == {"gpu": "NVIDIA H200"}


def test_interrupted_run_keeps_whole_rows_and_resumes(tmp_path: Path) -> None:
    w = EvidenceWriter(tmp_path / "dev", "r1").open()
    w.append(row(n=1))
    w.append(row(n=31))
    # The process is killed in the middle of the third write: no seal, part of a line left.
    os.close(w._fd)  # type: ignore[arg-type]
    with open(w.csv_path, "a") as f:
        f.write("r1,tile-sum/naive,realization,\"{\"\"op")
    assert [r["shape"] for r in read_journal(w.csv_path)] == ['{"n":1}', '{"n":31}']

    assert find_run(tmp_path, "r1") == tmp_path / "dev"
    resumed = EvidenceWriter(tmp_path / "dev", "r1").open()  # what --resume r1 does
    assert resumed.has(row(n=1)) and resumed.has(row(n=31)) and not resumed.has(row(n=4097))
    assert resumed.append(row(n=4097))
    text = w.csv_path.read_text()
    assert text.endswith("\n") and "\"{\"\"op\n" not in text
    resumed.close()
    assert [r["shape"] for r in read_sealed(w.sealed_path)] == ['{"n":1}', '{"n":31}', '{"n":4097}']
    # Resuming a sealed run adds to it; the rows it held stay, once each.
    again = EvidenceWriter(tmp_path / "dev", "r1").open()
    assert again.has(row(n=4097)) and not again.append(row(n=4097)) and again.append(row(n=7))
    again.close()
    assert [r["shape"] for r in read_sealed(w.sealed_path)] == ['{"n":1}', '{"n":31}', '{"n":4097}', '{"n":7}']


def test_a_killed_runs_journal_is_sealed_by_the_cli(tmp_path: Path) -> None:
    import subprocess
    import sys

    w = EvidenceWriter(tmp_path / "evidence" / "dev", "20260101T000000Z-bench-dead").open()
    w.append(row(n=1))
    os.close(w._fd)  # type: ignore[arg-type]  (killed: the journal stays)
    (tmp_path / "evidence" / "dev" / "notes.csv").write_text("a,b\n1,2\n")
    out = subprocess.run([sys.executable, "-m", "epldb", "evidence", "seal", str(tmp_path / "evidence")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "notes.csv:1:1: error: not an evidence journal" in out.stdout, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert not w.csv_path.exists() and [r["shape"] for r in read_sealed(w.sealed_path)] == ['{"n":1}']


def test_detail_is_one_line_and_quoted(tmp_path: Path) -> None:
    w = EvidenceWriter(tmp_path / "dev", "r1").open()
    w.append(row(detail='bad, "quoted"\nsecond line'))
    assert len(w.csv_path.read_text().splitlines()) == 2
    w.close()
    assert read_sealed(w.sealed_path)[0]["detail"] == 'bad, "quoted" second line'


def _write_run(root: Path, run: str, rows: list[Row]) -> None:
    w = EvidenceWriter(root / "evidence" / "nvidia-h200", run).open()
    for r in rows:
        w.append(r)
    w.close()


def test_stale_rows_and_newest_fresh_row_wins(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    cat = epldb.load(root, lint=False)
    h = source_hash(root, cat.realizations[RID].kernel.source)
    _write_run(root, "20260101T000000Z-verify-aaaa", [row("passed", 31, h), row("passed", 4097, h)])
    _write_run(root, "20260102T000000Z-verify-bbbb", [row("incorrect", 31, h)])
    _write_run(root, "20250101T000000Z-verify-old0", [row("passed", 1, "0" * 64)])
    peer = Row("block-tile-reduce/torch-eager", "peer", {"tile": 128}, "float32", {"n": 31}, "passed", gbps=12.5)
    _write_run(root, "20260103T000000Z-bench-cccc", [peer])

    df = load_evidence(root, cat)
    assert list(df.columns[: len(COLUMNS)]) == list(COLUMNS)
    assert set(df["device"]) == {"nvidia-h200"}
    # Shape and parameter fields as typed columns; the run's kind from its id.
    assert df.attrs["SHAPE_FIELDS"] == ["n"] and {"block", "items", "op", "tile", "param_dtype"} <= set(df.attrs["PARAM_FIELDS"])
    assert str(df["n"].dtype) == "Int64" and sorted(df["n"].tolist()) == [1, 31, 31, 31, 4097]
    assert str(df["block"].dtype) == "Int64" and df.loc[df["kind"] == "peer", "block"].isna().all()
    assert set(df["op"].dropna()) == {"sum"} and str(df["deterministic"].dtype) == "boolean"
    assert sorted(set(df["run_kind"])) == ["bench", "verify"]
    assert len(load_evidence(root, cat, run_kind="bench")) == 1 and len(load_evidence(root, cat, fresh=True)) == 4
    assert df.loc[df["source_hash"] == "0" * 64, "stale"].tolist() == [True]
    assert not df.loc[df["kind"] == "peer", "stale"].any()
    assert df["gbps"].dropna().tolist() == [12.5]

    newest = newest_fresh(df[df["kind"] == "realization"])
    by_n = {json.loads(s)["n"]: st for s, st in zip(newest["shape"], newest["status"])}
    assert by_n == {31: "incorrect", 4097: "passed"}  # the newer failure outvotes the older pass
    passing = newest_fresh(df[df["kind"] == "realization"], passing=True)
    assert [json.loads(s)["n"] for s in passing["shape"]] == [4097]

    # Changing an included header makes every row of the realization stale.
    kernel = root / "kernels" / cat.realizations[RID].kernel.source
    kernel.write_text(kernel.read_text() + "\n// changed\n")
    assert load_evidence(root, cat).loc[lambda d: d["kind"] == "realization", "stale"].all()


@pytest.mark.parametrize("status", ["verified", "draft"])
def test_lint_rule_without_evidence(tmp_path: Path, status: str) -> None:
    root = make_repo(tmp_path, status=status)
    cat = epldb.load(root, lint=False)
    (p,) = evidence_problems(cat)
    assert (p.location.file, p.location.line, p.json_path, p.rule) == (
        "catalog/realizations/tile-sum/naive.yaml", 5, "$.status", "evidence-fresh")
    if status == "verified":
        assert p.severity == "error"
        assert p.message == ("status is verified but there is no fresh passing evidence on any GPU; run 'epldb "
                             "verify tile-sum/naive' on a GPU or set status: draft")
    else:
        assert (p.severity, p.message) == ("notice", "draft: no fresh evidence yet")


def test_lint_rule_with_evidence(tmp_path: Path) -> None:
    root = make_repo(tmp_path, status="verified")
    cat = epldb.load(root, lint=False)
    h = source_hash(root, cat.realizations[RID].kernel.source)
    _write_run(root, "20260101T000000Z-verify-aaaa", [row("passed", 31, h)])
    assert evidence_problems(cat) == []
    # A newer fresh failure on the same instance makes "verified" an error again.
    _write_run(root, "20260102T000000Z-verify-bbbb", [row("incorrect", 31, h)])
    (p,) = evidence_problems(cat)
    assert p.severity == "error" and p.message.startswith("status is verified but the newest fresh evidence fails: "
                                                          "nvidia-h200: incorrect at")
    # Stale passing rows do not count.
    root2 = make_repo(tmp_path / "second", status="verified")
    cat2 = epldb.load(root2, lint=False)
    _write_run(root2, "20260101T000000Z-verify-aaaa", [row("passed", 31, "f" * 64)])
    (p,) = evidence_problems(cat2)  # re-measure pending: a warning until a GPU run, an error under --strict
    assert p.severity == "warning" and p.message.startswith("stale, re-measure pending: 1 row(s)")
    # This repository records no compile facts, so nothing says whether the machine code changed:
    # the message names the step without a GPU first.
    assert ("today's has no compile facts to tell whether its machine code changed: run 'epldb compile --record "
            "tile-sum/naive' (no GPU") in p.message and "'epldb verify tile-sum/naive' on a GPU for the rest" in p.message
    (p,) = evidence_problems(cat2, strict=True)
    assert p.severity == "error" and ("(1 stale row(s): today's source has no compile facts, and 'epldb compile "
                                      "--record tile-sum/naive' may keep them)") in p.message


def test_lint_rule_module_follows_the_rule_protocol(tmp_path: Path) -> None:
    from epldb.lint import evidence_fresh, launch_plan

    root = make_repo(tmp_path)
    cat = epldb.load(root, lint=False)
    assert evidence_fresh.RULE == "evidence-fresh" and launch_plan.RULE == "launch-plan"
    assert [p.severity for p in evidence_fresh.check(cat)] == ["notice"]
    assert list(launch_plan.check(cat)) == []


def test_the_commit_given_wins_over_the_git_metadata_beside_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a lent GPU machine git names the lending tool's snapshot; the caller's commit must win."""
    from epldb.evidence import git_commit

    monkeypatch.delenv("EPL_GIT_COMMIT", raising=False)
    monkeypatch.delenv("EPL_GIT_DIRTY", raising=False)
    assert git_commit(tmp_path) == ("unknown", None)  # no repository, nothing given
    head, _ = git_commit(epldb.load(lint=False).root)
    assert len(head) == 40
    monkeypatch.setenv("EPL_GIT_COMMIT", "0123abc")
    assert git_commit(epldb.load(lint=False).root) == ("0123abc", None)
    monkeypatch.setenv("EPL_GIT_DIRTY", "0")
    assert git_commit(tmp_path) == ("0123abc", False)


def test_cluster_placement_is_none_before_clusters_and_a_refusal_is_kept_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import dataclass

    from epldb import occupancy
    from epldb.evidence import environment as evidence

    @dataclass
    class Device:
        compute_capability: tuple[int, int]
        max_shared_optin: int = 227 * 1024

    assert evidence._cluster_places(Device((8, 0))) is None

    def refuse(max_shared_bytes: int) -> dict[int, int]:
        raise occupancy.OccupancyError("cuOccupancyMaxActiveClusters returned CUresult 1")

    monkeypatch.setattr(occupancy, "cluster_places", refuse)
    assert evidence._cluster_places(Device((9, 0))) == (
        "not measured: OccupancyError: cuOccupancyMaxActiveClusters returned CUresult 1")
    monkeypatch.setattr(occupancy, "cluster_places", lambda max_shared_bytes: {8: 15, 16: 7})
    assert evidence._cluster_places(Device((9, 0))) == {"8": 15, "16": 7}
