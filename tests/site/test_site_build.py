"""The site as a user gets it: `mkdocs build --strict` passes (checked by the fixtures), every record
has a page, every internal link resolves, nothing is fetched from the network, charts link their
data, and record text cannot inject markup."""

from __future__ import annotations

import csv
import hashlib
import re
from pathlib import Path

import pytest
from html_checks import broken_links, mermaid_blocks, network_assets, parse, visible_text
from site_fixtures import HOSTILE, copy_repository, make_synthetic, read_synthetic_evidence

from epldb.site import layout


@pytest.fixture(params=["repo_site", "bare_site", "synthetic_site"])
def built(request: pytest.FixtureRequest):
    return request.getfixturevalue(request.param)


def test_every_record_has_a_page(built) -> None:
    cat = built.generated.data.catalog
    expected = ({f"feature:{i}" for i in cat.features} | {f"primitive:{i}" for i in cat.primitives}
                | {f"realization:{i}" for i in cat.realizations} | {f"operator:{i}" for i in cat.operators}
                | {f"family:{p.family}" for p in cat.primitives.values()})
    assert expected <= set(built.pages)
    missing = [f"{key} → {page}" for key, page in built.pages.items() if not built.html(page).is_file()]
    assert not missing, "records without a built page:\n" + "\n".join(missing)
    for key, page in built.pages.items():
        kind, _, rid = key.partition(":")
        if kind in ("feature", "primitive", "realization", "operator"):
            record = {"feature": cat.features, "primitive": cat.primitives, "realization": cat.realizations,
                      "operator": cat.operators}[kind][rid]
            assert record.title in visible_text(built.html(page)), f"{page} does not show the title of {key}"


def test_the_fixed_pages_exist(built) -> None:
    for page in (layout.HOME, layout.CONTRIBUTING, layout.FEATURES_INDEX, layout.PRIMITIVES_INDEX,
                 layout.OPERATORS_INDEX, layout.SELECTION, layout.DEVICES_INDEX, layout.EVIDENCE_STATUS,
                 layout.BASIS):
        assert built.html(page).is_file(), page


def test_every_internal_link_resolves(built) -> None:
    bad = broken_links(built.site)
    assert not bad, "\n".join(bad[:50])


def test_no_asset_comes_from_the_network(built) -> None:
    found = network_assets(built.site)
    assert not found, "the site would fetch from the network:\n" + "\n".join(found[:50])
    assert not mermaid_blocks(built.site)


def test_no_web_fonts_and_kernel_sources_as_plain_text(built) -> None:
    cfg = (built.root / "mkdocs.yml").read_text()
    assert re.search(r"^\s*font:\s*false\b", cfg, re.M), "theme.font must stay false (no Google Fonts)"
    realization = next(p for k, p in built.pages.items() if k.startswith("realization:"))
    page = built.html(realization).read_text()
    # Plain escaped text in a closed <details> (test_site_weight.py: spans were most of a page's weight).
    assert 'class="epl-details epl-code"' in page and "<pre><code>" in page, "kernel source is missing"


def test_home_shows_the_flow_and_headline_or_no_evidence(built) -> None:
    text = visible_text(built.html(layout.HOME))
    for box in ("Operators", "Structural features", "Execution primitives", "GPU realizations"):
        assert box in text
    if built.generated.data.has_evidence():
        assert "best realization" in text and "ceiling GB/s" in text
    else:
        assert "No evidence yet" in text


def test_pages_say_no_evidence_until_there_is_some(bare_site) -> None:
    assert not bare_site.generated.data.has_evidence()
    cat = bare_site.generated.data.catalog
    for key, page in bare_site.pages.items():
        kind, _, rid = key.partition(":")
        if kind == "primitive" and cat.realizations_of(rid) or kind == "realization":
            assert "No evidence yet" in visible_text(bare_site.html(page)), page
    assert "No evidence yet" in visible_text(bare_site.html(layout.DEVICES_INDEX))


def test_primitive_page_compares_every_realization_and_charts_them(synthetic_site) -> None:
    html = synthetic_site.html(synthetic_site.pages["primitive:block-reduce"])
    parsed = parse(html)
    text = visible_text(html)
    assert re.search(r'class="[^"]*epl-comparison', html.read_text())
    for rid in ("block-reduce/warp-shuffle", "block-reduce/shared-tree"):
        title = synthetic_site.generated.data.catalog.realizations[rid].title
        assert title in text
    for peer in ("cupy", "torch-eager"):
        assert peer in text
    assert "sm_90a" in text and "regs" in text and "spills" in text
    # The main problem is the one declared first (op: [sum, max]), the largest shape is a column.
    assert "op=sum" in text and "n = 67,108,864" in text
    charts = [r.value for r in parsed.refs if r.tag == "img" and r.value.endswith(".svg")]
    assert charts, "no chart on the primitive page"
    for src in charts:
        svg = (html.parent / src).resolve()
        assert svg.is_file() and svg.read_bytes().lstrip().startswith((b"<?xml", b"<svg"))
    csvs = [r.value for r in parsed.refs if r.tag == "a" and r.value.endswith(".csv")]
    assert len(csvs) == len(charts), "every chart links its CSV"
    with open((html.parent / csvs[0]).resolve(), newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {"series", "kind", "shape", "gbps"} <= set(rows[0])
    assert {r["kind"] for r in rows} >= {"realization", "peer", "ceiling"}
    # The read kernel at each shape's own size, where the run measured one: the two largest shapes.
    reference = {r["shape"]: float(r["gbps"]) for r in rows if r["kind"] == "reference"}
    assert sorted(reference.values()) == [3516.0, 3564.0], reference


def test_realization_page_has_every_section(synthetic_site) -> None:
    html = synthetic_site.html(synthetic_site.pages["realization:block-reduce/warp-shuffle"])
    text = visible_text(html)
    for heading in ("Strategy", "Launch plan", "Kernel source", "Resources per target",
                    "Machine code: claims and SASS facts", "Evidence", "Environment of each run"):
        assert heading in text, heading
    assert "block_reduce_warp_shuffle_harness" in text
    assert "SASS contains SHFL" in text and "pass" in text
    assert "NVIDIA H200 (synthetic)" in text and "compute_capability" in text
    assert any(r.value.endswith(".svg") for r in parse(html).refs if r.tag == "img")


def test_realization_page_shows_its_sanitizer_status(synthetic_site) -> None:
    page = synthetic_site.html(synthetic_site.pages["realization:block-reduce/warp-shuffle"])
    text, raw = visible_text(page), page.read_text(encoding="utf-8")
    assert "Sanitizer" in text and "memcheck" in text and "racecheck" in text
    assert "clean" in text and "errors" in text and "20250101T020000Z-sanitize-synthetic" in text
    assert "check failed" in text  # no report from the tool, a failed check under it
    assert "Race <b>reported</b>" in text and "<b>reported" not in raw  # evidence text shown as text
    other = visible_text(synthetic_site.html(synthetic_site.pages["realization:block-reduce/shared-tree"]))
    assert "epldb sanitize block-reduce/shared-tree" in other  # not run yet: how to run it


def test_realization_page_shows_the_launch_domain(repo_site) -> None:
    text = visible_text(repo_site.html(repo_site.pages["realization:softmax/online-registers"]))
    assert "Domain: the shapes each parameter point serves" in text
    assert "group * items" in text
    # a realization without a domain has no domain table
    assert "Domain:" not in visible_text(repo_site.html(repo_site.pages["realization:block-reduce/warp-shuffle"]))
    # a step's residency claim is shown beside its grid, and only where it is made
    claim = "every block resident at once"
    assert claim in visible_text(repo_site.html(repo_site.pages["realization:segmented-row-reduce/persistent-rows"]))
    assert claim not in text


def test_realization_page_counts_the_points_params_when_keeps(repo_site) -> None:
    from repository import repository_catalog

    r = repository_catalog().realizations["gemm/tma-wgmma"]
    text = visible_text(repo_site.html(repo_site.pages["realization:gemm/tma-wgmma"]))
    assert f"{len(r.points())} parameter points (the cross product's {len(r.points_crossed())} where params_when" in text
    assert "(the cross product)" in visible_text(repo_site.html(repo_site.pages["realization:block-reduce/warp-shuffle"]))


def test_stale_rows_are_listed_but_never_best(synthetic_site) -> None:
    text = visible_text(synthetic_site.html(synthetic_site.pages["realization:block-reduce/shared-tree"]))
    assert "stale" in text
    prim = visible_text(synthetic_site.html(synthetic_site.pages["primitive:block-reduce"]))
    assert "9,999" not in prim, "a stale row was chosen as best"


def test_device_and_evidence_status_pages(synthetic_site) -> None:
    device = synthetic_site.html(synthetic_site.pages["device:nvidia-h200"])
    text = visible_text(device)
    assert "Measured ceilings" in text and "ceiling/read" in text and "4,300" in text
    assert any(r.value.endswith(".parquet") for r in parse(device).refs if r.tag == "a")
    # Which board each run measured, and how its GPCs place clusters (the newest run's in full).
    assert "aba6f9c0 · 7 clusters of 16" in text and "aba6f9c0 · 8 clusters of 16" in text
    assert "2: 66 · 4: 33 · 8: 15 · 16:" in text
    status = visible_text(synthetic_site.html(layout.EVIDENCE_STATUS))
    for section in ("Draft", "Stale evidence", "Missing evidence", "Primitives without realizations"):
        assert section in status
    assert "Warp reduction" in status  # a primitive with no realization is listed


def test_evidence_status_grids_every_realization_under_each_sanitizer_tool(synthetic_site) -> None:
    page = synthetic_site.html(layout.EVIDENCE_STATUS)
    text, raw = visible_text(page), page.read_text(encoding="utf-8")
    pairs = 4 * sum(key.startswith("realization:") for key in synthetic_site.pages)
    # the synthetic evidence: warp-shuffle clean under memcheck, a race under racecheck, a check failed
    # under synccheck with no report, nothing else run
    assert (f"of {pairs} (realization, tool) pairs, 1 clean, 1 with errors, 1 with no error reported but a "
            f"verification check failed under the tool, 0 failed to run, 0 clean on a kernel that changed since, "
            f"{pairs - 3} not run") in " ".join(text.split())
    assert "memcheck" in text and "initcheck" in text
    assert "Race &lt;b&gt;reported&lt;/b&gt;" in raw and "<b>reported" not in raw  # the detail, escaped


def test_evidence_status_lists_stale_and_missing(tmp_path: Path) -> None:
    """Generation only (no MkDocs): one realization's rows all stale, the other's absent."""
    from epldb.site import generate

    root = make_synthetic(tmp_path / "r")

    def loader(r: Path):
        df = read_synthetic_evidence(r)
        df = df[df["subject"] != "block-reduce/warp-shuffle"].copy()
        df.loc[df["subject"] == "block-reduce/shared-tree", "stale"] = True
        return df

    gen = generate(root, evidence_loader=loader, compile=False)
    md = (gen.docs_dir / layout.EVIDENCE_STATUS).read_text()
    stale = md.split("Stale evidence", 1)[1].split("Missing evidence", 1)[0]
    missing = md.split("Missing evidence", 1)[1].split("Failing", 1)[0]
    assert "shared-tree" in stale and "warp-shuffle" not in stale
    assert "warp-shuffle" in missing and "shared-tree" not in missing


# --- escaping -----------------------------------------------------------------------------------


def test_record_text_cannot_inject_markup(synthetic_site) -> None:
    for page in synthetic_site.site.rglob("*.html"):
        raw = page.read_text(encoding="utf-8")
        assert not re.search(r"<script>\s*alert", raw, re.I), f"{page}: a record's <script> reached the HTML"
        assert not re.search(r"<img[^>]*onerror", raw, re.I), f"{page}: a record's <img onerror> reached the HTML"
        assert not re.search(r"""href\s*=\s*["']?\s*javascript:""", raw, re.I), f"{page}: javascript: link"
        assert "<b>bold?</b>" not in raw and "<b>x</b>" not in raw
    feature = synthetic_site.html(synthetic_site.pages["feature:mergeable-state"])
    text = visible_text(feature)
    assert HOSTILE in text, "the hostile title is not shown as the text it is"
    assert "<img src=x onerror=alert(2)>" in text
    found = re.search(r"<title>(.*?)</title>", feature.read_text(), re.S)
    assert found is not None, f"{feature}: no <title>"
    title = found.group(1)
    assert "<" not in title and "&lt;script&gt;" in title
    # The pipes did not become a table, the brackets not a link.
    assert not any(r.value == "javascript:x" for r in parse(feature).refs)


def test_nav_titles_are_escaped(synthetic_site) -> None:
    home = synthetic_site.html(layout.HOME).read_text()
    assert "Warp shuffle <script>" not in home


def test_prose_keeps_a_safe_subset_of_markdown(synthetic_site) -> None:
    raw = synthetic_site.html(synthetic_site.pages["feature:reduction-summarizable"]).read_text()
    assert "<code>code</code>" in raw and "<strong>bold</strong>" in raw and "<em>emphasis</em>" in raw
    raw = synthetic_site.html(synthetic_site.pages["feature:mergeable-state"]).read_text()
    assert "<li>item &lt;b&gt;bold?&lt;/b&gt;</li>" in raw


# --- determinism --------------------------------------------------------------------------------


def _digests(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_generation_is_deterministic(tmp_path: Path) -> None:
    from epldb.site import generate

    first = make_synthetic(tmp_path / "a")
    second = make_synthetic(tmp_path / "b")
    ga = generate(first, evidence_loader=read_synthetic_evidence, compile=False)
    gb = generate(second, evidence_loader=read_synthetic_evidence, compile=False)
    da, db = _digests(ga.docs_dir / "generated"), _digests(gb.docs_dir / "generated")
    assert [k for k in da if k.endswith(".svg")], "no chart was written"
    assert da == db
    again = generate(first, evidence_loader=read_synthetic_evidence, compile=False)
    assert _digests(again.docs_dir / "generated") == da


def test_svg_has_no_date_and_fixed_ids() -> None:
    from epldb.site.charts import Chart, Series, render_svg

    chart = Chart("t", ["a", "b"], [Series("r", "realization", {"a": 1.0, "b": 2.0}),
                                    Series("p", "peer", {"a": 1.5})], {"a": 3.0, "b": 3.0})
    one, two = render_svg(chart), render_svg(chart)
    assert one == two
    assert b"<dc:date>" not in one


def test_no_charts_without_evidence(bare_site) -> None:
    assert not bare_site.generated.output.charts
    assert not list((bare_site.root / "site_src" / "generated").rglob("*.svg"))


def test_generated_pages_stay_under_generated(tmp_path: Path) -> None:
    from epldb.site import generate

    root = copy_repository(tmp_path / "r", evidence=False)
    before = {p for p in (root / "site_src").rglob("*") if "generated" not in p.parts}
    generate(root, compile=False)
    after = {p for p in (root / "site_src").rglob("*") if "generated" not in p.parts}
    assert before == after


def test_operator_page_compares_its_realizations_like_a_primitive_page(synthetic_site) -> None:
    cat = synthetic_site.generated.data.catalog
    composed = cat.realizations["row-sum/composed"]
    assert synthetic_site.pages["realization:row-sum/composed"] == layout.operator_realization("row-sum", "composed")
    html = synthetic_site.html(synthetic_site.pages["operator:row-sum"])
    text = visible_text(html)
    assert "Realizations compared" in text and composed.title in text
    assert re.search(r'class="[^"]*epl-comparison', html.read_text())
    assert "n = 67,108,864" in text, "the measured columns of the comparison table"
    assert any(r.value.endswith(".svg") for r in parse(html).refs if r.tag == "img"), "no chart on the operator page"
    page = visible_text(synthetic_site.html(synthetic_site.pages["realization:row-sum/composed"]))
    assert "Composed from" in page and "realizes operator" in page
    assert cat.realizations["block-reduce/warp-shuffle"].title in page and "Warp reduction" in page


def test_operator_page_sets_each_shape_against_its_strongest_peer(repo_site) -> None:
    from epldb.evidence import load_evidence
    from epldb.standings import standings

    cat = repo_site.generated.data.catalog
    expected = {(s.dtype, s.shape) for s in standings(cat, load_evidence(repo_site.root, cat), ids=["softmax"])}
    html = repo_site.html(repo_site.pages["operator:softmax"])
    text = visible_text(html)
    assert "Against the peers" in text and "of at-size" in text
    section = html.read_text().split('id="against-the-peers"', 1)[1]  # the heading, not the page's table of contents
    # One row per (dtype, shape) the committed evidence holds, not one per peer.
    assert section.split("</table>", 1)[0].count("<tr>") == len(expected) + 1  # + the header row
    assert "torch-compile" in section.split("</table>", 1)[0]


# --- latest runs and history (epldb.leads, epldb.site.history) ------------------------------------


def _history_figures(html: Path) -> list[tuple[str, list[dict[str, str]]]]:
    """(chart title, CSV rows) of each history chart on a page."""
    out = []
    for src, alt in re.findall(r'<img src="([^"]*-history\.svg)" alt="Chart: ([^"]*)"', html.read_text()):
        with open((html.parent / src[: -len(".svg")]).with_suffix(".csv"), newline="") as fh:
            out.append((alt, list(csv.DictReader(fh))))
    return out


def test_realization_page_shows_its_latest_runs_and_history(synthetic_site) -> None:
    from site_fixtures import OLD_RUN, RUN, VERIFY_RUN

    html = synthetic_site.html(synthetic_site.pages["realization:block-reduce/shared-tree"])
    text = visible_text(html)
    assert "Latest runs" in text and "History across runs" in text
    assert f"Bench {RUN} at an unrecorded commit (copy ceiling 4100 GB/s)" in text
    assert "among the block-reduce realizations" in text
    assert f"Against {OLD_RUN}" not in text  # it timed another tile (block 128): no cell in common
    shuffle = visible_text(synthetic_site.html(synthetic_site.pages["realization:block-reduce/warp-shuffle"]))
    assert f"Verify {VERIFY_RUN} at an unrecorded commit: 16/16 fp32 checks passed" in shuffle
    assert "fastest" in shuffle and "over shared-tree" in shuffle and "against cupy" in shuffle
    figures = dict(_history_figures(html))
    rows = figures["block-reduce/shared-tree on nvidia-h200: float32 · op=sum, across runs"]
    # The old run's row of a changed kernel is history: plotted, marked stale, never the page's best.
    assert {r["run"] for r in rows if r["kind"] == "stale"} == {OLD_RUN}
    assert {(r["series"], r["run"]) for r in rows if r["kind"] == "realization" and r["run"] == OLD_RUN} == {("n = 1,048,576", OLD_RUN)}


def test_a_bench_free_realization_has_no_latest_runs(bare_site) -> None:
    text = visible_text(bare_site.html(bare_site.pages["realization:block-reduce/warp-shuffle"]))
    assert "Latest runs" not in text and "History across runs" not in text


def test_a_history_chart_plots_the_best_rate_of_each_run_from_the_evidence(repo_site) -> None:
    """Each point is the best passing rate of the realization at that shape in that run, as
    load_evidence has the rows; every run that timed the shape is on the x axis, the stale ones marked."""
    from epldb.evidence import load_evidence
    from epldb.site.data import shape_label

    cat = repo_site.generated.data.catalog
    ev = load_evidence(repo_site.root, cat)
    timed = ev[(ev["kind"] == "realization") & (ev["status"] == "passed") & ev["gbps"].notna()]
    if "run_kind" in timed.columns:
        timed = timed[timed["run_kind"] != "experiment"]
    runs = timed.groupby("subject")["run"].nunique()
    rid = str(runs.idxmax())  # the realization with the most bench runs
    mine = timed[timed["subject"] == rid]
    figures = _history_figures(repo_site.html(repo_site.pages[f"realization:{rid}"]))
    assert figures, f"{rid} has {runs[rid]} bench runs but no history chart"
    assert max(len({r["run"] for r in rows}) for _, rows in figures) >= 2
    for title, rows in figures:
        dtype = title.split(": ", 1)[1].split(",", 1)[0].split(" · ")[0]
        device = title.split(": ", 1)[0].rsplit(" on ", 1)[1]  # a chart per device: only its runs
        points = {(r["series"], r["run"]): float(r["gbps"]) for r in rows if r["kind"] == "realization"}
        plotted = {series for series, _ in points}
        ours = mine[(mine["dtype"] == dtype) & (mine["device"] == device)]
        best = ours.groupby(["shape", "run"])["gbps"].max()
        expected = {(shape_label(s), run): float(g) for (s, run), g in best.items() if shape_label(s) in plotted}
        assert points.keys() == expected.keys(), title
        assert all(points[k] == pytest.approx(expected[k], rel=1e-5) for k in points), title
        stale = set(ours[ours["stale"].astype(bool) & ours["shape"].map(shape_label).isin(plotted)]["run"])
        assert {r["run"] for r in rows if r["kind"] == "stale"} == stale, title


def test_device_page_shows_the_spread_between_its_boards(repo_site) -> None:
    """Runs of one model on several boards are one device: its page says how far apart they are."""
    text = visible_text(repo_site.html(repo_site.pages["device:nvidia-h200"]))
    assert "Boards" in text
    found = re.search(r"(\d+) measurements .* timed on two boards or more: the slowest board over the fastest is "
                      r"(\d\.\d{3}) at the median", text)
    assert found and int(found[1]) > 0 and 1.0 <= float(found[2]) < 1.5
