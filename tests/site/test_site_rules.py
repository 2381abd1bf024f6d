"""The "Which realization when" section of the primitive and operator pages (epldb/site/pages/rules.py):
the decision table of epldb.select.rules, one table per device, a link per realization. Generation
of single pages only (no MkDocs, no compilation), over this repository's catalog and the evidence of
two subjects, softmax (an operator, realized by its own operator realizations) and
online-max-accumulation (a primitive); every other subject is left without evidence. The built
sites' checks (test_site_build.py: links resolve, no markup injected) cover the section too."""

from __future__ import annotations

import re
from typing import Any

import pytest
from html_checks import cell_text as text
from html_checks import each_table_rows, md_section, table_rows
from site_fixtures import HOSTILE

from epldb.select.choose import Selector
from epldb.select.rules import Region, rules
from epldb.site.html import Page
from epldb.site.pages.operators import write_operator
from epldb.site.pages.primitives import write_primitive
from epldb.site.pages.rules import HEADING, decision_table
from epldb.site.pages.site import Site


@pytest.fixture
def evidence(measured_evidence):  # conftest's, under this module's names
    return measured_evidence


@pytest.fixture
def site(measured_site) -> Site:
    return measured_site


def section(md: str) -> str | None:
    """The section's Markdown (up to the next heading of its level), None when the page has none."""
    return md_section(md, HEADING)


def span(cell: str) -> tuple[int, int]:
    numbers = [int(n) for n in re.findall(r"\d+", text(cell))]
    return numbers[0], numbers[-1]


def test_the_softmax_operator_page_shows_its_decision_table(site: Site, evidence) -> None:
    cat, ev = evidence
    o = cat.operators["softmax"]
    assert not [r for r in cat.realizations.values() if r.primitive == "softmax"]  # an operator's own realizations
    page = write_operator(site, o)
    block = section(page.render())
    assert block is not None, "the softmax operator page lost its 'Which realization when' section"
    devices = sorted(set(ev[(ev["kind"] == "realization") & ev["subject"].str.startswith("softmax/")
                            & ~ev["stale"].astype(bool) & (ev["run_kind"] == "bench")]["device"]))
    assert block.count("<table") == len(devices)  # a table per device with evidence, each naming its device
    assert devices and all(f'href="../devices/{d}.html"' in block for d in devices)
    # Softmax has no problem parameter beyond the dtype: no column of dashes for one.
    assert [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", block)] == [
        "dtype", "row length (cols)", "rows", "realization", "points chosen", "basis"] * len(devices)
    assert "<code>epldb rules softmax</code> prints the same table" in block
    tables = each_table_rows(block)
    rows = [row for t in tables for row in t]
    links = {r.id: page.href(site.page_of(r)) for r in cat.realizations_of("softmax")}
    for device, row in ((d, row) for d, t in zip(devices, tables) for row in t):
        assert len(row) == 6
        assert any(f'href="{href}"><code>{rid}</code></a>' in row[3] for rid, href in links.items()), row[3]
        low, high = span(row[1])
        assert low <= high
        bases = set(text(row[5]).split(", "))
        assert bases <= {"measured", "interpolated", "extrapolated", "rule"}
        if "rule" in bases:  # only where the region's realization has no fresh rows there (a kernel changed since)
            rid = next(r for r in links if f"<code>{r}</code>" in row[3])
            fresh = ev[(ev["subject"] == rid) & (ev["kind"] == "realization") & ~ev["stale"].astype(bool)
                       & (ev["device"] == device)]
            assert fresh.empty, f"{rid}: a region decided by rule though it has fresh evidence"
        assert "dtype=" not in row[4] and text(row[4])
    # On each device (benched at the contract's shapes, 4096 columns among them), each dtype's regions
    # cover the common row length of 4096 once, on a realization of softmax.
    for device, table in zip(devices, tables):
        for dtype in ("float32", "bfloat16"):
            covering = [row for row in table if text(row[0]) == dtype and span(row[1])[0] <= 4096 <= span(row[1])[1]]
            assert len(covering) == 1, (device, dtype)
            assert "softmax/" in text(covering[0][3])
    # The table is `epldb rules softmax`: the same regions, from a Selector reading the evidence itself.
    bench = ev[(ev["kind"] == "realization") & (ev["run_kind"] == "bench")].reset_index(drop=True)
    expected = rules(cat, "softmax", selector=Selector(cat, evidence=bench))
    assert site.decisions.of("softmax") == expected
    assert [(text(r[0]), span(r[1]), text(r[3])) for r in rows] == [
        (r.dtype, (r.low, r.high), r.realization) for r in expected]


def test_a_primitive_page_shows_its_decision_table(site: Site, evidence) -> None:
    cat, _ = evidence
    page = write_primitive(site, cat.primitives["online-max-accumulation"])
    block = section(page.render())
    assert block is not None
    rows = table_rows(block)
    heads = [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", block)]
    at = heads.index("realization")  # after a problem column only where the contract has problem parameters
    assert rows and all("online-max-accumulation/" in text(row[at]) and "<a href=" in row[at] for row in rows)
    assert "<code>epldb rules online-max-accumulation</code>" in block


def test_a_subject_without_evidence_shows_no_table(site: Site, evidence) -> None:
    cat, _ = evidence
    # Verified realizations, but no evidence of them here: the section says so, with no table.
    p = cat.primitives["mergeable-statistics"]
    assert any(r.status == "verified" for r in cat.realizations_of(p.id))
    block = section(write_primitive(site, p).render())
    assert block is not None and "<table" not in block and "No evidence yet" in block
    # Nothing to choose among (no realization, no contract): no section at all.
    bare = next(p for p in cat.primitives.values() if not cat.realizations_of(p.id))
    assert section(write_primitive(site, bare).render()) is None
    unrealized = next(o for o in cat.operators.values() if not cat.realizations_of(o.id))
    assert section(write_operator(site, unrealized).render()) is None


def test_the_table_escapes_what_it_shows(site: Site) -> None:
    hostile: dict[str, Any] = {"op": HOSTILE}
    region = Region("nvidia-h200", HOSTILE, hostile, "cols", 128, 4096, (4096, 128), f"softmax/{HOSTILE}",
                    tuple({"block": HOSTILE, "dtype": "float32", "i": i} for i in range(5)), (HOSTILE,), HOSTILE)
    out = decision_table(site, Page("generated/x.md", "x"), [region])
    assert "<script" not in out and not re.search(r"href=\"?\s*javascript", out)
    assert out.count("&lt;script&gt;") >= 5  # dtype, problem, the unknown realization, points, basis
    assert "+2" in out and "dtype=" not in out


def test_a_matrix_products_table_gives_m_beside_n(site: Site) -> None:
    region = Region("nvidia-h100-80gb-hbm3", "bfloat16", {"layout": "nt"}, "m", 73, 8372, (14336, 128256),
                    "gemm/tma-wgmma", ({"bm": 128, "bn": 256, "stages": 4},), ("interpolated",), "why", "n")
    out = decision_table(site, Page("generated/x.md", "x"), [region])
    assert [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", out)] == [
        "dtype", "problem", "m", "n", "realization", "points chosen", "basis"]
    assert "14336 → 128256" in out
