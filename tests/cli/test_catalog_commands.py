"""``epldb validate | list | show`` as a user runs them: readable by default, JSON on request, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import epldb as epldb_pkg

from examples import BASE


def epldb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "epldb", *args], capture_output=True, text=True, timeout=300)


def test_validate_schema_only_on_the_repository_prints_a_summary_and_exits_0() -> None:
    result = epldb("validate", "--schema-only")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("catalog valid: 7 features, 21 primitives in 5 families")


def test_validate_json() -> None:
    result = epldb("--root", str(BASE), "validate", "--schema-only", "--json")
    payload = json.loads(result.stdout)
    assert result.returncode == 0 and payload["valid"] is True
    assert payload["counts"] == {"features": 1, "primitives": 1, "realizations": 1, "operators": 1, "experiments": 1}


def test_list_filters_by_family_and_feature() -> None:
    result = epldb("list", "--family", "streaming", "--json")
    assert result.returncode == 0
    rows = json.loads(result.stdout)
    assert rows and all(r["family"] == "streaming" for r in rows if r["kind"] == "primitive")
    result = epldb("list", "--feature", "mergeable-state")
    assert result.returncode == 0 and "mergeable-statistics" in result.stdout


def test_show_a_realization_and_its_json() -> None:
    result = epldb("--root", str(BASE), "show", "tile-sum/naive")
    assert result.returncode == 0 and "Naive tile sum" in result.stdout
    payload = json.loads(epldb("--root", str(BASE), "show", "tile-sum", "--json").stdout)
    assert payload["kind"] == "primitive" and payload["realizations"] == ["tile-sum/naive"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "tile-summ"], "no record 'tile-summ'; did you mean tile-sum"),
        (["list", "--family", "nope"], "no family 'nope'"),
        (["list", "--kind", "feature", "--family", "reduction"], "--family and --feature filter"),
        (["frobnicate"], "invalid choice"),
        (["show"], "the following arguments are required: id"),
    ],
)
def test_bad_usage_exits_2_with_a_plain_message(args: list[str], message: str) -> None:
    result = epldb("--root", str(BASE), *args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("layout", "message"), [
    ("missing", "no catalog/ folder under"),
    ("empty", "holds no record"),
    ("catalog-folder", "is a catalog folder, not a repository root: give its parent"),
])
def test_a_root_without_a_catalog_is_an_error(tmp_path: Path, layout: str, message: str) -> None:
    root = tmp_path
    if layout == "empty":
        (tmp_path / "catalog" / "features").mkdir(parents=True)
    elif layout == "catalog-folder":
        (tmp_path / "catalog" / "schema").mkdir(parents=True)
        root = tmp_path / "catalog"
    result = epldb("--root", str(root), "validate", "--schema-only")
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, "a root without a catalog is never 'catalog valid'"
    assert message in result.stdout + result.stderr


def test_load_strict_raises_where_there_is_no_catalog(tmp_path: Path) -> None:
    with pytest.raises(epldb_pkg.CatalogInvalid, match="no catalog/ folder"):
        epldb_pkg.load(tmp_path, strict=True)
