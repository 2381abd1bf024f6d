"""Issue 34's links: a realization whose kernel stages through the copy engine (the bulk-copy and
tensor-copy bodies) or prefetches the next row into registers (body/resident_pipelined.cuh) names
that tile-staging primitive in ``composes``, so the primitive's page (epldb/site/uses.py) lists it.
Read from the kernels' own includes, so a new kernel on those bodies cannot drift from its record."""

from __future__ import annotations

import re

import pytest

from repository import repository_catalog

CATALOG = repository_catalog()
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]epl/([^>"]+)[>"]', re.M)

#: Device blocks whose use is the primitive (the headers that issue the copies or the prefetch).
STAGING = {
    "tma-bulk-copy": ("body/staged.cuh", "body/staged_pipelined.cuh", "block/tensor_copy.cuh",
                      "block/stage_bulk.cuh", "block/bulk_copy.cuh"),
    "register-double-buffering": ("body/resident_pipelined.cuh",),
}


def includes(source: str) -> set[str]:
    text = (CATALOG.kernels_dir / source).read_text(encoding="utf-8")
    return set(_INCLUDE.findall(text))


CASES = [(r.id, prim) for r in CATALOG.realizations.values() if r.kernel.source
         for prim, headers in STAGING.items() if includes(r.kernel.source) & set(headers)]


def test_the_staging_realizations_are_found() -> None:
    found = {p for _, p in CASES}
    assert found == set(STAGING), CASES


@pytest.mark.parametrize("rid, primitive", CASES, ids=[f"{r}:{p}" for r, p in CASES])
def test_a_staging_realization_composes_its_primitive(rid: str, primitive: str) -> None:
    composes = CATALOG.realizations[rid].composes
    assert any(b.split("/", 1)[0] == primitive for b in composes), f"{rid} stages through {primitive}; add it to composes"


@pytest.mark.parametrize("primitive", sorted(STAGING))
def test_the_primitive_page_lists_them(primitive: str) -> None:
    from epldb.site.uses import used_inside

    listed = {u.realization.id for u in used_inside(CATALOG, primitive)}
    assert {rid for rid, p in CASES if p == primitive} <= listed
