"""epldb/sanitize.py on the CPU: the report parser on compute-sanitizer's output forms, the row a
(realization, tool) run becomes for each way it can end, the command's run with a fake child;
on the GPU, one realization under every tool for real."""

from __future__ import annotations

import io
import shutil
import threading
import time
from pathlib import Path

import pytest

import epldb.measure
import epldb.sanitize as S
from epldb.evidence import EvidenceWriter, Row, read_sealed
from repository import repository_catalog

CATALOG = repository_catalog()
RID = "block-reduce/warp-shuffle"

CLEAN = """========= COMPUTE-SANITIZER
verify: 12 checks passed
========= ERROR SUMMARY: 0 errors
"""
MEMCHECK = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 16 bytes
=========     at row_softmax_online+0x4d0
=========     by thread (255,0,0) in block (3,0,0)
=========     Address 0x7f3a00001008 is out of bounds
========= Invalid __global__ read of size 16 bytes
=========     at row_softmax_online+0x4d0
========= Invalid __global__ write of size 2 bytes
=========     at row_softmax_online+0x610
========= Misaligned Shared or Local Address
========= ERROR SUMMARY: 4 errors
"""
RACECHECK = """========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at rows_staged+0x90
=========     and Read access at rows_staged+0x120 [1024 hazards]
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""


def test_the_parser_counts_the_summary_and_keeps_the_first_distinct_reports() -> None:
    assert S.parse_report(CLEAN) == S.Report(0, ())
    r = S.parse_report(MEMCHECK)
    assert r.errors == 4
    assert r.first == ("Invalid __global__ read of size 16 bytes", "Invalid __global__ write of size 2 bytes",
                       "Misaligned Shared or Local Address")  # the repeated read once, backtraces left out
    assert S.parse_report(RACECHECK) == S.Report(1, ("Error: Race reported between Write access at rows_staged+0x90",))
    assert S.parse_report("Segmentation fault\n").errors is None  # died before its summary


def test_the_child_verifies_one_realization_under_one_tool(tmp_path: Path) -> None:
    argv = S.sanitizer_command("racecheck", RID, tmp_path, 4096, CATALOG.root, "/opt/cs")
    assert argv[:3] == ["/opt/cs", "--tool", "racecheck"] and "--error-exitcode" in argv
    i = argv.index("verify")
    assert argv[i:] == ["verify", RID, "--max-n", "4096", "--out", str(tmp_path), "--cover"]
    every = S.sanitizer_command("racecheck", RID, tmp_path, 4096, CATALOG.root, "/opt/cs", all_points=True)
    assert every[every.index("verify"):] == ["verify", RID, "--max-n", "4096", "--out", str(tmp_path)]


def _fake(text: str, status: int | None, checks: list[str]) -> S.Runner:
    """A child that writes one verification row per status in ``checks`` and prints ``text``."""

    def run(argv: list[str], timeout_s: float) -> tuple[int | None, str]:
        out = Path(argv[argv.index("--out") + 1])
        with EvidenceWriter(out / "dev", "20261205T000000Z-verify-fake") as w:
            for n, status_ in enumerate(checks):
                w.append(Row(RID, "realization", {"op": "sum"}, "float32", {"n": n + 1}, status_,
                             source_hash="abc123", target="sm_90a", nvrtc="13.0"))
        return status, text

    return run


@pytest.mark.parametrize(("text", "status", "checks", "want", "says", "reads"), [
    (CLEAN, 0, ["passed"] * 3, "passed", "clean: 0 errors; 3 verification check(s) at 4 of 48 point(s), 0 failed", "clean"),
    (MEMCHECK, S.ERROR_EXIT, ["passed"], "incorrect", "4 memcheck error(s): Invalid __global__ read", "errors"),
    ("", S.ERROR_EXIT, ["passed"], "incorrect", "memcheck errors (exit 86)", "errors"),
    (CLEAN, 1, ["passed", "incorrect"], "incorrect", "0 memcheck errors, but the verification failed", "check failed"),
    (CLEAN, 1, ["passed", "incorrect"], "incorrect", 'first failed: float32 {"n":2} at {"op":"sum"} (incorrect', "check failed"),
    ("", None, ["passed"], "runtime-error", "timed out after 5 s (1 verification check(s) at 4 of 48 point(s), 0 failed by then)", "failed to run"),
    ("Traceback ...\nRuntimeError: no device\n", 3, [], "runtime-error", "exit 3 and no verification rows", "failed to run"),
])
def test_each_way_a_run_ends_is_one_row(text: str, status: int | None, checks: list[str], want: str, says: str,
                                        reads: str) -> None:
    row = S.sanitize_one(CATALOG, RID, "memcheck", max_n=1000, timeout_s=5, runner=_fake(text, status, checks))
    assert (row.subject, row.kind, row.params, row.shape, row.status) == (RID, "sanitizer", {"tool": "memcheck"},
                                                                         {"max_n": 1000}, want)
    assert says in row.detail, row.detail
    assert S.outcome(row.status, row.detail) == reads  # what the site calls it
    if checks:  # the kernel it watched: the child's verification names it
        assert (row.source_hash, row.target, row.nvrtc) == ("abc123", "sm_90a", "13.0")


def test_the_command_writes_a_row_per_tool_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: "/opt/cs")
    monkeypatch.setattr(epldb.measure, "no_gpu", lambda out: False)
    monkeypatch.setattr("epldb.device.device_info", lambda: type("D", (), {"slug": "fake-gpu"})())
    monkeypatch.setattr("epldb.evidence.collect_environment", lambda root, run, command: {"run": run})
    calls: list[str] = []
    clean = _fake(CLEAN, 0, ["passed"])

    def runner(argv: list[str], timeout_s: float) -> tuple[int | None, str]:
        calls.append(argv[argv.index("--tool") + 1])
        return clean(argv, timeout_s) if calls[-1] != "synccheck" else (S.ERROR_EXIT, "========= Barrier error\n")

    out = io.StringIO()
    code = S.sanitize_command(CATALOG, [RID], out_dir=tmp_path, runner=runner, stdout=out, stderr=io.StringIO())
    assert code == 1 and calls == list(S.TOOLS)
    (sealed,) = tmp_path.glob("fake-gpu/*-sanitize-*.parquet")
    rows = read_sealed(sealed)
    assert [(r["params"], r["status"]) for r in rows] == [
        ('{"tool":"memcheck"}', "passed"), ('{"tool":"racecheck"}', "passed"),
        ('{"tool":"synccheck"}', "incorrect"), ('{"tool":"initcheck"}', "passed")]
    assert "3 of 4 (realization, tool) runs clean" in out.getvalue()
    calls.clear()  # a resumed run runs what it lacks only: nothing
    run = sealed.name.removesuffix(".parquet")
    assert S.sanitize_command(CATALOG, [RID], out_dir=tmp_path, resume=run, runner=runner, stdout=io.StringIO(),
                              stderr=io.StringIO()) == 0 and calls == []


def test_children_run_side_by_side_after_one_build_and_every_row_lands(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: "/opt/cs")
    monkeypatch.setattr(epldb.measure, "no_gpu", lambda out: False)
    monkeypatch.setattr("epldb.device.device_info", lambda: type("D", (), {"slug": "fake-gpu"})())
    monkeypatch.setattr("epldb.evidence.collect_environment", lambda root, run, command: {"run": run})
    built: list[list[str]] = []
    monkeypatch.setattr(epldb.measure, "prebuild_selected", lambda cat, ids, err: built.append(list(ids)))
    lock, live, most = threading.Lock(), [0], [0]
    clean = _fake(CLEAN, 0, ["passed"])

    def runner(argv: list[str], timeout_s: float) -> tuple[int | None, str]:
        with lock:
            live[0] += 1
            most[0] = max(most[0], live[0])
        time.sleep(0.2)  # long enough that four children overlap
        with lock:
            live[0] -= 1
        return clean(argv, timeout_s)

    code = S.sanitize_command(CATALOG, [RID], out_dir=tmp_path, jobs=4, runner=runner, stdout=io.StringIO(),
                              stderr=io.StringIO())
    assert code == 0 and built == [[RID]] and most[0] > 1
    (sealed,) = tmp_path.glob("fake-gpu/*-sanitize-*.parquet")
    assert sorted(r["params"] for r in read_sealed(sealed)) == sorted(
        '{"tool":"%s"}' % t for t in S.TOOLS)


def test_without_the_sanitizer_the_command_says_where_to_look(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    err = io.StringIO()
    assert S.sanitize_command(CATALOG, [RID], stdout=io.StringIO(), stderr=err) == 2
    assert "compute-sanitizer not found" in err.getvalue() and "docs/GPU.md" in err.getvalue()


@pytest.mark.gpu
def test_a_realization_is_clean_under_every_tool(tmp_path: Path) -> None:
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer not on PATH")
    for tool in S.TOOLS:
        row = S.sanitize_one(CATALOG, RID, tool, max_n=5000, timeout_s=600)
        assert row.status == "passed", (tool, row.detail)


#: compute-sanitizer options that take a value (CUDA 13): any other word before the program would be
#: read as the program itself ("Target application doesn't exist", seen on the GPU for initcheck).
VALUED_OPTIONS = {"--tool", "--leak-check", "--racecheck-report", "--error-exitcode", "--print-limit"}


@pytest.mark.parametrize("tool", S.TOOLS)
def test_sanitizer_options_are_pairs_before_the_program(tool: str) -> None:
    argv = S.sanitizer_command(tool, RID, Path("/tmp/out"), 4096, CATALOG.root)
    program = argv.index(S.sys.executable)
    options = argv[1:program]
    assert len(options) % 2 == 0, options
    assert set(options[0::2]) <= VALUED_OPTIONS, options
    assert argv[program + 1:program + 3] == ["-m", "epldb"]
