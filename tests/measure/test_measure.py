"""The verify and bench commands: tables and progress on the CPU; end to end on the GPU."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import epldb
from epldb.evidence import Row, read_rows
from epldb.measure import ProgressBar, bench_table, verify_command, verify_table

CATALOG = epldb.load(lint=False)


def _row(subject: str, status: str = "passed", kind: str = "realization", **kw) -> Row:
    return Row(subject, kind, {"block": 256, "items": 8, "dtype": "float32", "op": "sum"}, "float32",
               {"n": kw.pop("n", 31)}, status, **kw)


def test_verify_table() -> None:
    rows = [_row("a/x", err_max_rel=1e-7, deterministic=True),
            _row("a/x", "incorrect", err_max_rel=0.5, deterministic=True, detail="NaN in output")]
    text = verify_table(rows)
    assert text.splitlines()[0].split() == ["realization", "dtype", "checks", "passed", "failed", "max", "err",
                                            "bitwise", "first", "failure"]
    assert "a/x" in text and "5.00e-01" in text and "incorrect: NaN in output" in text


def test_bench_table() -> None:
    rows = [Row("ceiling/read", "ceiling", {}, "", {"bytes": 1}, "passed", gbps=4000.0, time_ms_median=0.5),
            _row("a/x", n=1 << 20, gbps=1000.0, frac_ceiling=0.25, time_ms_median=0.004),
            _row("a/x", n=1 << 28, gbps=3800.0, frac_ceiling=0.95, time_ms_median=0.28)]
    lines = bench_table(rows).splitlines()
    assert lines[2].split()[:2] == ["ceiling/read", "4000"]
    assert lines[3].split()[:6] == ["a/x", "float32", "sum", "n=268435456", "3800", "0.95"]
    assert lines[4].split()[3] == "n=1048576"


def test_progress_bar_without_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(20, "verify", out)
    for _ in range(20):
        bar.step("x")
    bar.close()
    lines = out.getvalue().splitlines()
    assert 10 <= len(lines) <= 11 and "   20/20" in lines[-1] and "[" + "#" * 28 + "]" in lines[-1]


def test_unknown_id_is_a_usage_error() -> None:
    err = io.StringIO()
    assert verify_command(CATALOG, ["block-reduce/nope"], stderr=err) == 2
    assert "unknown realization(s): block-reduce/nope" in err.getvalue()


def test_without_a_gpu_the_commands_say_so() -> None:
    from epldb.runner import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present")
    err = io.StringIO()
    assert verify_command(CATALOG, [], stderr=err) == 2
    assert "no CUDA device visible to CuPy" in err.getvalue()


@pytest.mark.gpu
def test_verify_command_writes_evidence(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    rid = next(iter(CATALOG.realizations))
    code = verify_command(CATALOG, [rid], out_dir=tmp_path, where={"dtype": ["float32"], "op": ["sum"]},
                          max_n=4097, stdout=out, stderr=err)
    assert code == 0, out.getvalue()
    (csv_path,) = tmp_path.glob("*/*.csv")
    rows = read_rows(csv_path)
    assert rows and all(r["status"] == "passed" for r in rows)
    assert (csv_path.parent / csv_path.name.replace(".csv", ".env.json")).exists()
    # Resuming the same run adds nothing.
    run = csv_path.stem
    assert verify_command(CATALOG, [rid], out_dir=tmp_path, resume=run, where={"dtype": ["float32"], "op": ["sum"]},
                          max_n=4097, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert len(read_rows(csv_path)) == len(rows)
