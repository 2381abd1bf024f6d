"""The "Selection, measured" page (epldb/site/pages/selection.py): leave one shape out, as
``epldb select --evaluate`` scores it, over the evidence of softmax and online-max-accumulation
(conftest's ``measured_site``). Single pages only (no MkDocs, no compilation); the built sites'
checks (test_site_build.py: the page exists, links resolve, no markup injected) cover it too."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from html_checks import cell_text, each_table_rows, md_section, table_rows
from site_fixtures import HOSTILE

from epldb.select.choose import Selector
from epldb.select.evaluate import FAR, NEAR, Cell, Evaluation, evaluate
from epldb.site import layout
from epldb.site.pages import KINDS, generate_pages, nav
from epldb.site.pages.operators import write_operator
from epldb.site.pages.selection import KIND, TITLE, WORST_SHOWN, selection_page, write_selection
from epldb.site.pages.site import Site

METHOD = "Each cell is one device, subject, dtype, problem and shape of the committed bench evidence."


def cell(ratio: float, *, subject: str = "softmax", device: str = "nvidia-h200", basis: str = "interpolated",
         **text: str) -> Cell:
    """An invented cell whose pick is ``ratio`` times the fastest measured."""
    fields = {"dtype": "float32", "shape": '{"cols":4096,"rows":8192}', "pick": "softmax/online-registers",
              "best": "softmax/online-block-reread", **text}
    return Cell(device, subject, fields["dtype"], {}, fields["shape"], fields["pick"], {"group": 32}, ratio,
                fields["best"], {"block": 256}, 1.0, basis)


def test_the_page_is_generated_and_sits_in_the_nav_after_the_operators(measured_site: Site, tmp_path: Path) -> None:
    out = generate_pages(measured_site.data, tmp_path, kinds=(KIND,))
    md = (tmp_path / layout.SELECTION).read_text(encoding="utf-8")
    assert list(out.pages) == [layout.SELECTION] and f"# {TITLE}\n" in md
    assert METHOD in md
    assert f"within {NEAR - 1:.0%} of the fastest" in md and f"within {FAR - 1:.0%} at all of them" in md
    assert "<code>epldb select --evaluate</code> prints the same" in md and "<code>epldb bench --sweep</code>" in md
    titles = [next(iter(entry)) for entry in nav(measured_site, KINDS)]
    assert titles[titles.index("Operators") + 1] == "Selection"
    assert {"Selection": layout.SELECTION} in nav(measured_site, KINDS)
    # The decision tables point to it.
    page = write_operator(measured_site, measured_site.cat.operators["softmax"])
    assert f'href="{page.href(layout.SELECTION)}">{TITLE}</a>' in page.render()


def test_the_softmax_row_counts_the_cells_evaluate_gives(measured_site: Site, measured_evidence) -> None:
    cat, ev = measured_evidence
    bench = ev[(ev["kind"] == "realization") & (ev["run_kind"] == "bench")].reset_index(drop=True)
    expected = evaluate(cat, ["softmax"], Selector(cat, evidence=bench))
    assert expected.cells
    found = measured_site.decisions.evaluation()
    assert isinstance(found, Evaluation)
    assert [c for c in found.cells if c.subject == "softmax"] == list(expected.cells)  # the site's Selector agrees
    page = write_selection(measured_site)
    block = md_section(page.render(), "By subject")
    assert block is not None
    rows = [r for rows in each_table_rows(block) for r in rows if cell_text(r[0]) == "softmax"]
    devices = sorted({c.device for c in expected.cells})
    assert len(rows) == len(devices)  # a table per device, in the devices' order
    softmax = page.href(measured_site.page_of(cat.operators["softmax"]))
    for row, device in zip(rows, devices):
        mine = Evaluation(tuple(c for c in expected.cells if c.device == device))
        assert f'href="{softmax}"><code>softmax</code></a>' in row[0]
        assert int(cell_text(row[1])) == len(mine.cells)
        assert cell_text(row[2]) == f"{mine.share_near:.0%}"
        assert float(cell_text(row[4])) == round(mine.worst, 2)
    # The basis breakdown counts every cell once.
    basis = md_section(page.render(), "By basis of the pick")
    assert basis is not None
    assert sum(int(cell_text(r[2])) for r in table_rows(basis)) == len(found.cells)
    assert {cell_text(r[1]) for r in table_rows(basis)} <= {"interpolated", "extrapolated"}


def test_the_verdict_is_the_evaluations(measured_site: Site) -> None:
    found = measured_site.decisions.evaluation()
    assert isinstance(found, Evaluation)
    md = write_selection(measured_site).render()
    assert ("<strong>The bar holds now.</strong>" in md) == found.holds
    assert ("<strong>The bar does not hold now</strong>" in md) == (not found.holds)
    assert f"over the {len(found.cells)} cells" in md
    # Invented evaluations: all picks the fastest; one beyond FAR; too few within NEAR.
    good = Evaluation(tuple(cell(1.0) for _ in range(10)))
    assert good.holds and "The bar holds now." in selection_page(measured_site, good).render()
    far = Evaluation(tuple(cell(1.0) for _ in range(19)) + (cell(1.2),))
    md = selection_page(measured_site, far).render()
    assert not far.holds and "The bar does not hold now</strong>: 1 pick beyond 15%." in md
    near = Evaluation(tuple(cell(1.0) for _ in range(8)) + (cell(1.1), cell(1.1)))
    md = selection_page(measured_site, near).render()
    assert not near.holds and "8 of 10 within 5% is under 90%." in md and "picks beyond" not in md
    # No cells: the method, no verdict.
    md = selection_page(measured_site, Evaluation(())).render()
    assert METHOD in md and "No evidence yet" in md and "The bar holds" not in md and "does not hold" not in md


def test_the_worst_picks_link_their_realizations(measured_site: Site) -> None:
    found = measured_site.decisions.evaluation()
    assert isinstance(found, Evaluation)
    page = write_selection(measured_site)
    block = md_section(page.render(), "Worst picks")
    assert block is not None
    rows = table_rows(block)
    heads = [cell_text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", block)]
    slower = sorted((c for c in found.cells if c.ratio > 1), key=lambda c: -c.ratio)
    assert len(rows) == min(WORST_SHOWN, len(slower)) > 0
    assert ("problem" in heads) == any(c.problem for c in slower[:WORST_SHOWN])  # no column of dashes
    assert float(cell_text(rows[0][heads.index("ratio")])) == round(slower[0].ratio, 2)
    for row, c in zip(rows, slower):
        for rid, at in ((c.pick, row[heads.index("pick")]), (c.best, row[heads.index("fastest measured")])):
            href = page.href(measured_site.page_of(measured_site.cat.realizations[rid]))
            assert f'href="{href}"><code>{rid}</code></a>' in at
            assert "dtype=" not in at and "<small>" in at  # the point, without the dtype
        assert cell_text(row[heads.index("basis")]) == c.basis
    assert 'href="data/selection-cells.csv"' in block
    assert posixpath.join(posixpath.dirname(layout.SELECTION), "data", "selection-cells.csv") in measured_site.out.files


def test_the_page_escapes_what_it_shows(measured_site: Site) -> None:
    hostile = Cell(HOSTILE, HOSTILE, HOSTILE, {"op": HOSTILE}, HOSTILE, f"softmax/{HOSTILE}", {"block": HOSTILE},
                   2.0, f"softmax/{HOSTILE}x", {"group": HOSTILE}, 1.0, HOSTILE)
    md = selection_page(measured_site, Evaluation((hostile, cell(1.5)))).render()
    assert "<script" not in md and not re.search(r"href=\"?\s*javascript", md)
    # subject (twice), device (twice), dtype, problem, shape, pick and its point, best and its point, basis (twice)
    assert md.count("&lt;script&gt;") >= 13
    assert "<th>device</th>" in md  # two devices: the worst picks say which
    failed = selection_page(measured_site, f"ValueError: {HOSTILE}").render()
    assert "<script" not in failed and "could not be computed: ValueError: &lt;script&gt;" in failed
