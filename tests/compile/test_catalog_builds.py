"""Every realization of the repository's catalog compiles for every target it declares, with all its
machine-code claims holding, and the committed compile facts (evidence/static/) are what this
toolchain makes of today's kernels. The matrix is generated from the catalog, never listed by hand."""

from __future__ import annotations

import pytest

import epldb
from epldb.compile import find_toolchain
from epldb.compile.build import RealizationBuild
from epldb.evidence import canonical_json
from epldb.evidence.static import INT_COLUMNS, load_facts, toolchain_id
from epldb.validate_deep import compile_all

CATALOG = epldb.load()
FACTS = load_facts(CATALOG.root)
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
    toolchain = toolchain_id(find_toolchain())
    recorded = {(f["entry"], f["point"]): f for f in FACTS.of(realization.id, target, build.source_hash)
                if f["toolchain"] == toolchain}
    assert recorded, (f"the committed facts of {realization.id} on {target} are stale (the kernel or the toolchain "
                      f"changed): run `epldb compile --record {realization.id}` and commit evidence/static/")
    for e in build.entries:
        f = recorded.get((e.entry, canonical_json(e.point)))
        assert f is not None, f"no committed facts for {e.expression}: run `epldb compile --record {realization.id}`"
        assert {c: f[c] for c in INT_COLUMNS} == {c: getattr(e, c) for c in INT_COLUMNS}, e.expression
        assert f["sass_sha256"] == e.sass_sha256, f"{e.expression}: the committed SASS is not what compiles today"


def test_catalog_is_not_empty_of_realizations() -> None:
    assert MATRIX, "the catalog has no realization to build"
