"""Every realization of the repository's catalog compiles for every target it declares, with all its
machine-code claims holding. The matrix is generated from the catalog, never listed by hand."""

from __future__ import annotations

import pytest

import epldb
from epldb.compile.build import RealizationBuild
from epldb.validate_deep import compile_all

CATALOG = epldb.load()
MATRIX = [(r, t) for r in CATALOG.realizations.values() for t in r.targets]
_BUILDS: dict[tuple[str, str], RealizationBuild] = {}


def build_of(realization, target: str) -> RealizationBuild:
    """The matrix is compiled once, in threads (as `epldb validate` does: NVRTC releases the GIL),
    the first time any case asks; each case then checks its own build."""
    if not _BUILDS:
        for (r, t), build in zip(MATRIX, compile_all(CATALOG.root, MATRIX), strict=True):
            _BUILDS[(r.id, t)] = build
    return _BUILDS[(realization.id, target)]


@pytest.mark.parametrize(("realization", "target"), MATRIX, ids=[f"{r.id}@{t}" for r, t in MATRIX])
def test_realization_builds_and_keeps_its_claims(realization, target: str) -> None:
    build = build_of(realization, target)
    assert [p.format() for p in build.problems if p.severity == "error"] == []
    assert build.cubin is not None
    assert len(build.entries) == len(realization.points()) * len(realization.kernel.entries)
    for entry in build.entries:
        assert entry.registers > 0 and entry.lowered_name
        assert entry.sass, "SASS histogram missing: nvdisasm must be found in CI"


def test_catalog_is_not_empty_of_realizations() -> None:
    assert MATRIX, "the catalog has no realization to build"
