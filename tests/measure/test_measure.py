"""The verify and bench commands: tables and progress on the CPU; end to end on the GPU."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import epldb
from repository import repository_catalog
from epldb.evidence import Row, read_sealed
from epldb.measure import ProgressBar, bench_table, shape_label, verify_command, verify_table

CATALOG = repository_catalog()


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


def _row_2d(subject: str, rows: int, cols: int, gbps: float, block: int = 256) -> Row:
    # As read back from an evidence file: canonical JSON, so "cols" comes before "rows".
    return Row(subject, "realization", {"block": block, "dtype": "float32"}, "float32",
               {"cols": cols, "rows": rows}, "passed", gbps=gbps, frac_ceiling=gbps / 4637.0, time_ms_median=0.07)


def test_shape_label_names_every_variable() -> None:
    assert shape_label({"n": 1 << 20}) == "n=1048576"
    assert shape_label({"cols": 256, "rows": 262_144}) == "rows=262144,cols=256"
    assert shape_label({"cols": 4096, "rows": 16_384}) != shape_label({"cols": 256, "rows": 262_144})


def test_bench_table_keeps_2d_shapes_of_equal_size_apart() -> None:
    # 262144x256 and 16384x4096 hold the same 2^26 elements; before, both printed as n=67108864
    # and only the faster one survived. Each shape keeps its own best row now.
    rows = [_row_2d("p/x", 262_144, 256, 467.0), _row_2d("p/x", 262_144, 256, 223.0, block=512),
            _row_2d("p/x", 16_384, 4096, 3868.0), _row_2d("p/x", 16_384, 4096, 2309.0, block=512),
            _row_2d("p/x", 128, 262_144, 3585.0, block=512)]
    lines = bench_table(rows).splitlines()[2:]
    # No op for these rows: its column is blank, so the shape is the third word.
    assert [ln.split()[2:4] for ln in lines] == [["rows=262144,cols=256", "467"],
                                                 ["rows=16384,cols=4096", "3868"],
                                                 ["rows=128,cols=262144", "3585"]]
    assert lines[0].split()[-1] == "block=256" and lines[2].split()[-1] == "block=512"


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
    from epldb.device import gpu_available

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
    (sealed,) = tmp_path.glob("*/*.parquet")  # sealed when the run ended, the journal gone
    assert not list(tmp_path.glob("*/*.csv"))
    rows = read_sealed(sealed)
    assert rows and all(r["status"] == "passed" for r in rows)
    assert (sealed.parent / sealed.name.replace(".parquet", ".env.json")).exists()
    # Resuming the same run adds nothing.
    run = sealed.stem
    assert verify_command(CATALOG, [rid], out_dir=tmp_path, resume=run, where={"dtype": ["float32"], "op": ["sum"]},
                          max_n=4097, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert len(read_sealed(sealed)) == len(rows)
