"""Acceptance test over the example catalogs in tests/examples/: every negative case gives exactly its
expected located problems (API and CLI alike, exit 1, no traceback); every positive case is clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import epldb
from epldb.lint import RULES
from examples import cases, materialize

NEGATIVE = cases("negative")
POSITIVE = cases("positive")


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "epldb", "--root", str(root), *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", NEGATIVE, ids=[c.name for c in NEGATIVE])
def test_negative_example(case: Path, tmp_path: Path) -> None:
    root = materialize(case, tmp_path)
    expected = (case / "expected.txt").read_text().splitlines()
    assert expected, f"{case.name}: expected.txt must list at least one problem"
    catalog = epldb.validate(root)
    assert [p.format() for p in catalog.problems] == expected
    result = _cli(root, "validate", "--schema-only")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.splitlines()[: len(expected)] == expected


@pytest.mark.parametrize("case", POSITIVE, ids=[c.name for c in POSITIVE])
def test_positive_example(case: Path, tmp_path: Path) -> None:
    root = materialize(case, tmp_path)
    catalog = epldb.validate(root)
    assert [p.format() for p in catalog.problems] == []
    result = _cli(root, "validate", "--schema-only")
    assert result.returncode == 0, result.stdout + result.stderr


def test_base_example_is_valid() -> None:
    from examples import BASE

    assert epldb.validate(BASE).problems == []


@pytest.mark.parametrize("rule", [r.name for r in RULES])
def test_every_lint_rule_has_a_negative_example(rule: str) -> None:
    """Each lint rule is exercised by at least one negative example that names it."""
    hits = [c.name for c in NEGATIVE if f"[{rule}]" in (c / "expected.txt").read_text()]
    assert hits, f"no negative example triggers [{rule}]; add a folder under tests/examples/negative/"


def test_strict_load_raises_with_every_problem(tmp_path: Path) -> None:
    root = materialize(next(c for c in NEGATIVE if c.name == "unknown-field"), tmp_path)
    with pytest.raises(epldb.CatalogInvalid) as info:
        epldb.load(root, strict=True)
    assert "unknown field 'colour'" in str(info.value)
