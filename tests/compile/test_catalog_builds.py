"""Every realization of the repository's catalog compiles for every target it declares, and the
committed compile facts (evidence/static/) are what this toolchain makes of today's kernels, with
every machine-code claim holding on them. The matrix is generated from the catalog, never listed by
hand.

Every point of every parameter space must have committed facts at the kernel's current source
hash: `epldb compile --record` writes them only from a whole build (ptxas and nvdisasm included) that
succeeded, so a point that stopped compiling, or a kernel changed since, has none. The claims are
checked on those facts, every point. CI then rebuilds, as far as PTX, a sample of each space that
holds every value of every parameter at least once (all entries at each sampled point), and compares
each function's PTX hash with the recorded one: ptxas is a function of the PTX, its options and the
toolchain (all three in the facts' key), so equal PTX means the recorded machine code is today's.
Sampling keeps CI inside its budget (the whole space took 726 s of a 1233 s run on two cores, once the
split entries came); `epldb validate` rebuilds every point, and tests/compile/test_sass.py runs
ptxas and nvdisasm here."""

from __future__ import annotations

import json
from functools import cache

import pytest

import epldb
from repository import repository_catalog
from epldb.compile import find_toolchain
from epldb.compile.build import EntryBuild, RealizationBuild
from epldb.compile.claims import check_claims
from epldb.evidence import canonical_json
from epldb.evidence.static import INT_COLUMNS, Facts, load_facts, toolchain_id
from epldb.validate_deep import compile_all

CATALOG = repository_catalog()
MATRIX = [(r, t) for r in CATALOG.realizations.values() for t in r.targets]
_BUILDS: dict[tuple[str, str], RealizationBuild] = {}


@cache
def committed_facts() -> Facts:
    """The committed compile facts, read when the first case asks (reading them at import took
    0.8 s of every collection, pyarrow's import included)."""
    return load_facts(CATALOG.root)


def build_of(realization, target: str) -> RealizationBuild:
    """The sampled matrix is compiled once, in threads (NVRTC releases the GIL), the first time any
    case asks; each case then checks its own build."""
    if not _BUILDS:
        for (r, t), build in zip(MATRIX, compile_all(CATALOG.root, MATRIX, machine_code=False, cover=True), strict=True):
            _BUILDS[(r.id, t)] = build
    return _BUILDS[(realization.id, target)]


def recorded_entry(fact: dict) -> EntryBuild:
    """The committed facts of one instantiation, in the shape the claim checks read."""
    return EntryBuild(entry=fact["entry"], point=json.loads(fact["point"]), expression=fact["expression"],
                      lowered_name=fact["lowered_name"], **{c: int(fact[c]) for c in INT_COLUMNS},
                      sass=json.loads(fact["sass"]), sass_variants=json.loads(fact["sass_variants"]),
                      sass_sha256=fact["sass_sha256"], ptx_sha256=fact["ptx_sha256"] or "")


@pytest.mark.parametrize(("realization", "target"), MATRIX, ids=[f"{r.id}@{t}" for r, t in MATRIX])
def test_realization_compiles_to_its_recorded_code_and_keeps_its_claims(realization, target: str) -> None:
    build = build_of(realization, target)
    assert [p.format() for p in build.problems if p.severity == "error"] == []
    assert build.ok and build.ptx_only
    sample = realization.points_covering()
    assert len(build.entries) == len(sample) * len(realization.kernel.entries)
    toolchain = toolchain_id(find_toolchain())
    recorded = {(f["entry"], f["point"]): f for f in committed_facts().of(realization.id, target, build.source_hash)
                if f["toolchain"] == toolchain}
    assert recorded, (f"the committed facts of {realization.id} on {target} are stale (the kernel or the toolchain "
                      f"changed): run `epldb compile --record {realization.id}` and commit evidence/static/")
    wanted = [(e.name, canonical_json(p)) for p in realization.points() for e in realization.kernel.entries]
    missing = [k for k in wanted if k not in recorded]
    assert not missing, (f"no committed facts for {len(missing)} instantiation(s), first {missing[0]}: run "
                         f"`epldb compile --record {realization.id}`")
    for e in build.entries:
        assert e.ptx_sha256 and e.lowered_name, f"{e.expression}: no PTX function found for it"
        f = recorded[(e.entry, canonical_json(e.point))]
        assert f["ptx_sha256"] == e.ptx_sha256, (f"{e.expression}: the committed facts are not of the code that compiles "
                                                 f"today: run `epldb compile --record {realization.id}`")
        assert f["lowered_name"] == e.lowered_name and f["expression"] == e.expression, e.expression
    entries = [recorded_entry(recorded[k]) for k in wanted]
    assert all(e.registers > 0 and e.sass for e in entries), "committed facts without resources or SASS"
    assert [p.format() for p in check_claims(realization, entries, target)] == []


def test_catalog_is_not_empty_of_realizations() -> None:
    assert MATRIX, "the catalog has no realization to build"
