"""The command line follows the conventions: --version, documented exit codes, --root on either side
of the command, and a selection that selects nothing is bad usage (exit 2), never an empty table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from epldb.cli import build_parser
from epldb.cli.common import EXIT_CODES

from examples import BASE

ROOT = Path(__file__).resolve().parents[2]


def epldb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env_path = str(ROOT)
    return subprocess.run([sys.executable, "-m", "epldb", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "EPL_DEBUG": "1"})


def test_version() -> None:
    result = epldb("--version")
    assert result.returncode == 0 and result.stdout.startswith("epldb ")


def test_every_exit_code_is_documented_in_the_help() -> None:
    assert set(EXIT_CODES) == {0, 1, 2, 3, 130}
    help_text = " ".join(build_parser().format_help().split())
    for code, meaning in EXIT_CODES.items():
        assert f"{code} {' '.join(meaning.split())}" in help_text


def test_root_after_the_command_wins() -> None:
    before = epldb("--root", "/nonexistent", "list", "--kind", "feature", "--root", str(BASE))
    assert before.returncode == 0, before.stderr
    after = epldb("list", "--kind", "feature", "--root", str(BASE))
    assert after.returncode == 0 and after.stdout == before.stdout


def test_the_working_directorys_catalog_wins_and_another_is_named(tmp_path: Path) -> None:
    inside = epldb("list", "--kind", "feature", cwd=BASE)
    assert inside.returncode == 0 and "reading the one at" not in inside.stderr
    assert inside.stdout == epldb("--root", str(BASE), "list", "--kind", "feature").stdout
    outside = epldb("list", "--kind", "feature", cwd=tmp_path)
    assert outside.returncode == 0 and f"reading the one at {ROOT}" in outside.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--target", "sm_99"], "--target sm_99: none of the selected realizations declares it"),
    (["--where", "colums=4096"], "no selected realization has a parameter 'colums'"),
    (["--where", "dtype=float128"], "no parameter point of the selected realizations matches"),
])
def test_a_selection_that_selects_nothing_is_bad_usage(args: list[str], message: str) -> None:
    rid = sorted(p.parent.name + "/" + p.stem for p in (BASE / "catalog" / "realizations").glob("*/*.yaml"))[0]
    result = epldb("--root", str(BASE), "compile", rid, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
