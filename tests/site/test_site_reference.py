"""The site as a reference (issue 32): shapes written one way, environments as rows, tables that fit
at 1400 px and sort and filter with our own script, and a search that works from disk, holds the
"why" of the records and not their logs, and finds an operator's page first by its name.

Built once, on the synthetic site (conftest.py); the browser checks share one chromium run per page."""

from __future__ import annotations

import html as std_html
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from html_checks import cell_text, md_section, table_rows  # noqa: E402
from site_fixtures import OLD_RUN, RUN, VERIFY_RUN  # noqa: E402
from test_site_browser import CHROMIUM, chromium  # noqa: E402

from epldb.shapes import shape_text  # noqa: E402

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")


# --- shapes -------------------------------------------------------------------------------------


def test_shape_text_is_rows_by_cols_and_exact() -> None:
    assert shape_text({"cols": 16384, "rows": 4096}) == "4096 × 16384"
    assert shape_text('{"cols":16384,"rows":4096}') == "4096 × 16384"  # as the evidence stores it
    assert shape_text('{"cols":1024,"dim":128,"rows":4096}') == "4096 × 1024, dim = 128"
    assert shape_text({"n": 3000017}) == "n = 3,000,017"
    assert shape_text({"bytes": 1 << 31}) == "bytes = 2,147,483,648"
    assert shape_text([4096, 8192]) == "4096 × 8192"
    assert shape_text("not json") == "not json"


def test_generated_pages_write_shapes_one_way(synthetic_site) -> None:
    """No page keeps the old spellings (n=1Mi, cols=16Ki rows=4Ki, 4096x16384); the synthetic
    evidence's flat shapes read n = 1,048,576."""
    generated = synthetic_site.root / "site_src" / "generated"
    old = re.compile(r"\b(?:n|rows|cols|bytes)=\d+(?:Ki|Mi|Gi)?\b|\b\d{3,}x\d{3,}\b")
    for md in generated.rglob("*.md"):
        found = old.findall(md.read_text(encoding="utf-8"))
        assert not found, f"{md.relative_to(generated)} spells shapes the old way: {found[:5]}"
    page = (synthetic_site.root / "site_src" / synthetic_site.pages["realization:block-reduce/warp-shuffle"])
    assert "n = 1,048,576" in page.read_text(encoding="utf-8")
    home = (synthetic_site.site / "index.html").read_text(encoding="utf-8")
    assert "Conventions" in home and "rows × cols" in home  # the convention is stated once, on the home page


# --- tables -------------------------------------------------------------------------------------


def test_run_environments_are_rows(synthetic_site) -> None:
    """One row per run, whatever the number of runs; what every run recorded alike is listed once, and
    the fields that differ are named."""
    md = (synthetic_site.root / "site_src" / synthetic_site.pages["realization:block-reduce/warp-shuffle"]).read_text(
        encoding="utf-8")
    block = re.split(r"### Environment of each run[^\n]*\n", md, maxsplit=1)[1]
    env = block.split('class="epl-table epl-env', 1)[1]
    head = re.findall(r"<th[^>]*>(.*?)</th>", env.split("</thead>", 1)[0])
    assert [cell_text(h) for h in head] == ["run", "UTC", "device", "commit", "board", "files"]
    rows = table_rows(env)
    assert [cell_text(r[0]) for r in rows] == [VERIFY_RUN, RUN]  # oldest first, as before
    alike = block.split("Alike in every run", 1)[1]
    assert "sm_count" in alike and "cluster_places.16" in env.split("</table>", 1)[0]  # the caption names it


def test_problem_column_only_where_it_has_values(synthetic_site) -> None:
    for key, page in synthetic_site.pages.items():
        md = (synthetic_site.root / "site_src" / page).read_text(encoding="utf-8")
        for table in re.findall(r"<table[^>]*>.*?</table>", md, re.S):
            heads = [cell_text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
            if "problem" not in heads:
                continue
            i = heads.index("problem")
            cells = [cell_text(r[i]) for r in table_rows(table) if len(r) > i]
            assert any(c not in ("", "—") for c in cells), f"{key}: an empty problem column"


def _probe(tmp: Path, page: Path, script: str, budget_ms: int = 6000) -> dict:
    """Open a copy of ``page`` (beside it, so its assets resolve) with ``script`` appended, at
    1400 px; the script leaves its findings as JSON in <pre id="probe">."""
    copy = page.with_name(f"__probe_{tmp.name}_{page.name}")
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", f"<script>{script}</script></body>"),
                    encoding="utf-8")
    try:
        proc = chromium(tmp, copy.as_uri(), "--dump-dom", "--window-size=1400,900",
                        f"--virtual-time-budget={budget_ms}")
    finally:
        copy.unlink()
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m, f"the probe left nothing:\n{proc.stderr[-2000:]}"
    return json.loads(std_html.unescape(m.group(1)))


#: Runs after the page's scripts (epl-tables.js included): the widths of every table at 1400 px, then
#: a sort of the longest table with a GB/s column (the latest runs' standing) by that header (twice)
#: and a filter of its rows.
TABLE_PROBE = r"""
window.addEventListener('load', function () { setTimeout(function () {
  var out = {};
  try {
  out.wide = Array.from(document.querySelectorAll('.md-typeset__scrollwrap')).filter(function (w) {
    return w.closest('details') === null || w.closest('details').open; })
    .filter(function (w) { return w.scrollWidth > w.clientWidth + 1; })
    .map(function (w) { return w.querySelector('thead') ? w.querySelector('thead').textContent : '?'; });
  var table = Array.from(document.querySelectorAll('table')).filter(function (t) {
    return t.tHead && t.tBodies[0] && t.tBodies[0].rows.length >= 12 && /GB\/s/.test(t.tHead.textContent); })[0];
  var details = table.closest('.epl-table').parentNode;  // where the script puts the filter bar
  var wrap = table.closest('.md-typeset__scrollwrap');
  out.everyRowWide = wrap.scrollWidth > wrap.clientWidth + 1;
  var heads = Array.from(table.tHead.rows[0].cells).map(function (th) { return th.textContent.trim(); });
  var col = heads.indexOf('GB/s');
  function column() { return Array.from(table.tBodies[0].rows).filter(function (r) { return !r.hidden; })
    .map(function (r) { return r.cells[col].textContent.trim(); }); }
  out.before = column();
  var button = table.tHead.rows[0].cells[col].querySelector('button.epl-sort');
  out.button = !!button;
  button.click(); out.ascending = column(); out.sortState = table.tHead.rows[0].cells[col].getAttribute('aria-sort');
  button.click(); out.descending = column();
  var filter = details.querySelector('input.epl-filter');
  out.filter = !!filter;
  filter.value = 'shared-tree NOMATCH'; filter.dispatchEvent(new Event('input'));
  out.noneLeft = column().length;
  filter.value = '1,048,576'; filter.dispatchEvent(new Event('input'));
  out.filtered = Array.from(table.tBodies[0].rows).filter(function (r) { return !r.hidden; })
    .map(function (r) { return r.textContent; });
  out.total = table.tBodies[0].rows.length;
  } catch (e) { out.error = String(e); }
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 200); });
"""


def _numbers(cells: list[str]) -> list[float]:
    return [float(c.replace(",", "")) for c in cells if c not in ("", "—")]


@needs_chromium
def test_tables_fit_at_1400px_and_sort_and_filter(synthetic_site, tmp_path: Path) -> None:
    """On a measured realization page at 1400 px no table scrolls sideways (the margin, p10-p90 and
    freshness columns are in view); a long table's headers sort it both ways by number and its filter
    keeps the rows holding every word."""
    page = synthetic_site.html(synthetic_site.pages["realization:block-reduce/warp-shuffle"])
    found = _probe(tmp_path, page, TABLE_PROBE)
    assert "error" not in found, found.get("error")
    assert found["wide"] == [], f"tables that scroll sideways at 1400 px: {found['wide']}"
    assert not found["everyRowWide"]
    assert found["button"] and found["filter"]
    assert _numbers(found["ascending"]) == sorted(_numbers(found["before"]))
    assert found["sortState"] == "ascending"
    assert _numbers(found["descending"]) == sorted(_numbers(found["before"]), reverse=True)
    assert found["noneLeft"] == 0
    assert found["filtered"] and len(found["filtered"]) < found["total"]
    assert all("1,048,576" in row for row in found["filtered"])


def test_tables_are_plain_without_the_script(synthetic_site) -> None:
    """The script only adds buttons and a filter box: the built page holds the whole table, no
    control of its own, and loads the script from the site itself."""
    html = synthetic_site.html(synthetic_site.pages["realization:block-reduce/warp-shuffle"]).read_text(encoding="utf-8")
    assert "epl-sort" not in html and "epl-filter" not in html
    assert re.search(r'<script src="(\.\./)+assets/epl-tables\.js">', html)
    assert (synthetic_site.site / "assets" / "epl-tables.js").is_file()


# --- search -------------------------------------------------------------------------------------


def test_search_index_holds_the_why_not_the_logs(synthetic_site) -> None:
    index = json.loads((synthetic_site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    docs = index["docs"]
    titles = {d["title"] for d in docs}
    for excluded in ("Kernel source", "Launch plan", "Evidence", "Environment of each run", "Runs",
                     "Measured ceilings", "Latest runs", "Change", "Evidence runs", "Sources"):
        assert excluded not in titles, f"the search index holds the section {excluded!r}"
    assert {"Strategy", "Question", "Result"} <= titles
    text = " ".join(d["text"] for d in docs)
    assert OLD_RUN not in text and "SYNTHETIC TEST DATA" not in text  # runs and rows stay out
    assert "<td" not in text  # no table cells
    operator = [d for d in docs if d["location"].split("#")[0] == synthetic_site.pages["operator:row-sum"][:-3] + ".html"]
    assert operator and all(d.get("boost") == 10 and "rowsum" in d.get("tags", ()) for d in operator)
    # From disk the index is read by a script tag (the offline plugin), the worker by our own shim.
    assert (synthetic_site.site / "search" / "search_index.js").read_text(encoding="utf-8").startswith("var __index")
    home = (synthetic_site.site / "index.html").read_text(encoding="utf-8")
    assert '<script src="assets/epl-iframe-worker.js">' in home and "unpkg" not in home


SEARCH_PROBE = r"""
window.addEventListener('load', function () {
  var input = document.querySelector('input[data-md-component="search-query"]');
  var toggle = document.querySelector('[data-md-toggle="search"]');
  toggle.checked = true; toggle.dispatchEvent(new Event('change'));
  input.focus();
  setTimeout(function () {
    input.value = 'row sum'; input.dispatchEvent(new Event('input', {bubbles: true}));
    input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'm'}));
    var tries = 0;
    (function poll() {
      var links = document.querySelectorAll('.md-search-result__item > a');
      if (!links.length && tries++ < 50) { setTimeout(poll, 100); return; }
      var pre = document.createElement('pre'); pre.id = 'probe';
      pre.textContent = JSON.stringify(Array.from(links).map(function (a) { return a.getAttribute('href'); }));
      document.body.appendChild(pre);
    })();
  }, 300);
});
"""


@needs_chromium
def test_search_works_from_disk_and_finds_the_operator_first(synthetic_site, tmp_path: Path) -> None:
    results = _probe(tmp_path, synthetic_site.html("index.md"), SEARCH_PROBE, budget_ms=15000)
    assert results, "the search gave no result from file://"
    operator = synthetic_site.pages["operator:row-sum"][:-3] + ".html"
    assert results[0].split("#")[0].endswith(operator), results[:3]
