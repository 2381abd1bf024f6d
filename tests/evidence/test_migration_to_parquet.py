"""The migration of evidence from plain CSV to sealed Parquet runs lost nothing: every run sealed
from a CSV of the commit before the migration holds exactly that CSV's rows, cell for cell (text
as written, numbers and flags back to the same text). Needs the history (a full clone); skips where
the commit is not there (a shallow clone)."""

from __future__ import annotations

import csv
import io
import subprocess

import pytest

from epldb.catalog import default_root
from epldb.evidence import read_sealed, run_files

BEFORE = "de141c8"  # a commit whose evidence/ held the runs as CSV (its evidence/ is the migration's parent's)
ROOT = default_root()


def _git(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=120)


def _old_csvs() -> dict[str, str]:
    listing = _git("ls-tree", "-r", "--name-only", BEFORE, "--", "evidence")
    if listing.returncode != 0:
        pytest.skip(f"commit {BEFORE} is not in this clone's history")
    paths = [p for p in listing.stdout.splitlines() if p.endswith(".csv")]
    return {p: _git("show", f"{BEFORE}:{p}").stdout for p in paths}


def test_every_csv_run_was_sealed_value_for_value() -> None:
    old = _old_csvs()
    assert len(old) == 120
    sealed = {p.relative_to(ROOT).as_posix(): p for p in run_files(ROOT, experiments=False)}
    for csv_path, text in sorted(old.items()):
        parquet = csv_path[: -len(".csv")] + ".parquet"
        assert parquet in sealed, f"{csv_path} was not sealed"
        before = list(csv.DictReader(io.StringIO(text)))
        after = read_sealed(sealed[parquet])
        assert len(after) == len(before), csv_path
        for i, (a, b) in enumerate(zip(after, before)):
            assert a == b, f"{csv_path} row {i + 2}: {a} != {b}"
