"""``epldb compile`` as a user runs it: the resource table narrowed by --where, and --sass listings."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from epldb.compile import find_toolchain

RID = "rmsnorm/reread-fixed-cols"
ONE_POINT = ["--where", "columns=4096", "--where", "group=512", "--where", "sm_threads=1024", "--where", "dtype=float32"]


def epldb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "epldb", *args], capture_output=True, text=True, timeout=600)


def test_where_narrows_the_builds_to_the_matching_points() -> None:
    result = epldb("compile", RID, "--target", "sm_90a", "--json", "--where", "columns=4096", "--where", "dtype=float32")
    assert result.returncode == 0, result.stderr
    entries = [e for b in json.loads(result.stdout)["builds"] for e in b["entries"]]
    points = {json.dumps(e["point"], sort_keys=True) for e in entries}
    assert len(points) == 6  # 3 groups x 2 sm_threads of the 24 points
    assert all(e["point"]["columns"] == 4096 and e["point"]["dtype"] == "float32" for e in entries)


def test_sass_prints_one_listing_per_entry_and_point() -> None:
    if find_toolchain().nvdisasm is None:
        pytest.skip("no nvdisasm here (CI has it: tests/compile/test_toolchain.py)")
    result = epldb("compile", RID, "--target", "sm_90a", "--sass", *ONE_POINT, "--entry", "rows")
    assert result.returncode == 0, result.stderr
    headers = [line for line in result.stdout.splitlines() if line.startswith("// rmsnorm/reread-fixed-cols")]
    assert headers == ["// rmsnorm/reread-fixed-cols  sm_90a  rows  columns=4096 group=512 sm_threads=1024 dtype=float32"]
    body = [line for line in result.stdout.splitlines() if line and not line.startswith("//")]
    # one round of two 16-byte row loads per pass, the reread's carrying L1 evict_first
    assert sum("LDG.E.EL.128" in line for line in body) == 2
    assert sum("LDG.E.EF.128" in line for line in body) == 2
    assert any(line.startswith("EXIT") for line in body)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--entry", "rows"], "--entry narrows --sass"),
        (["--sass", "--where", "columns=7"], "no parameter point of the selected realizations matches"),
        (["--sass", "--where", "columns"], "--where expects PARAM=V1,V2"),
    ],
)
def test_bad_usage_exits_2_with_a_plain_message(args: list[str], message: str) -> None:
    if "--sass" in args and "columns=7" in args and find_toolchain().nvdisasm is None:
        pytest.skip("no nvdisasm here")
    result = epldb("compile", RID, "--target", "sm_90a", *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert message in result.stderr and "Traceback" not in result.stderr
