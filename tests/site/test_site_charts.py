"""Charts that tell the truth: every realization's best point at each shape it was measured at,
legends whole and inside the SVG, each peer in one colour everywhere, an axis over the measured
band, a speedup view; and primitives that list the realizations they are used inside."""

from __future__ import annotations

import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import epldb
from epldb.site.charts import _PEER_COLOURS, _REALIZATION_COLOURS, PEER_COLOURS, Chart, Series, render_svg
from epldb.site.pages.comparison import speedup_chart
from epldb.site.uses import stage_kernels, used_inside
from html_checks import visible_text

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
from chart_audit import legend_overflows  # noqa: E402


def _chart_csvs(built, page_key: str) -> dict[str, list[dict[str, str]]]:
    """The page's chart data by file name."""
    html = built.html(built.pages[page_key])
    out = {}
    for href in re.findall(r'href="([^"]+\.csv)"', html.read_text()):
        path = (html.parent / href).resolve()
        if path.parent.name == "charts":
            with path.open(newline="") as fh:
                out[path.name] = list(csv.DictReader(fh))
    return out


def _passing_best(ev, subjects: set[str], op: str = "sum") -> dict[str, dict[str, float]]:
    """subject → shape label → best passing GB/s, of the main problem (op=sum, float32)."""
    ok = ev[ev["subject"].isin(subjects) & ev["passed"] & ev["gbps"].notna() & ~ev["stale"]
            & ev["params"].str.contains(f'"op": "{op}"')]
    best: dict[str, dict[str, float]] = defaultdict(dict)
    for (subject, shape), g in ok.groupby(["subject", "shape_label"])["gbps"].max().items():
        best[subject][shape] = float(g)
    return best


def test_comparison_chart_draws_each_realization_at_every_shape_it_was_measured(synthetic_site) -> None:
    ev = synthetic_site.generated.data.evidence
    ids = {"block-reduce/warp-shuffle", "block-reduce/shared-tree"}
    best = _passing_best(ev, ids)
    chart = _chart_csvs(synthetic_site, "primitive:block-reduce")["block-reduce-nvidia-h200-float32-op-sum.csv"]
    for rid in ids:
        plotted = {r["shape"]: float(r["gbps"]) for r in chart if r["series"] == rid.split("/")[1]}
        assert plotted.keys() == best[rid].keys(), rid
        assert all(plotted[s] == pytest.approx(best[rid][s], rel=1e-5) for s in plotted), rid


def test_realization_chart_is_a_line_of_the_best_point_at_each_shape(synthetic_site) -> None:
    ev = synthetic_site.generated.data.evidence
    rid = "block-reduce/warp-shuffle"
    best = _passing_best(ev, {rid})[rid]
    rows = _chart_csvs(synthetic_site, f"realization:{rid}")["warp-shuffle-nvidia-h200-float32-op-sum.csv"]
    line = {r["shape"]: float(r["gbps"]) for r in rows if r["series"] == "best point at each shape"}
    assert line.keys() == best.keys() and len(line) == 4
    assert all(line[s] == pytest.approx(best[s], rel=1e-5) for s in line)
    # The point timed at one shape only is in the line there, not a dot of its own.
    assert "block=1024 items=16" not in {r["series"] for r in rows}
    points = defaultdict(set)
    for r in rows:
        if r["kind"] == "realization":
            points[r["series"]].add(r["shape"])
    assert all(len(shapes) > 1 for shapes in points.values()), points


def test_operator_and_primitive_pages_add_a_speedup_chart(synthetic_site) -> None:
    rows = _chart_csvs(synthetic_site, "primitive:block-reduce")["block-reduce-nvidia-h200-float32-op-sum-speedup.csv"]
    assert {r["series"] for r in rows if r["kind"] == "peer"} == {"cupy", "torch-eager"}
    assert any(r["kind"] == "level" and float(r["speedup"]) == 1.0 for r in rows)


def _legend_texts(svg: str) -> list[str]:
    return re.findall(r'<text x="[^"]+" y="[^"]+" font-size="11">([^<]*)</text>', svg)


def test_long_legends_wrap_inside_the_viewbox_and_are_never_shortened() -> None:
    labels = [f"realization {i} with a long descriptive parameter label block=512 cluster=16 held=2" for i in range(9)]
    labels.append("x" * 300)  # no space to break at
    chart = Chart("t", ["a", "b", "c"],
                  [Series(t, "realization", {"a": 1.0 + i, "b": 2.0, "c": 3.0}) for i, t in enumerate(labels)]
                  + [Series("torch-eager", "peer", {"a": 2.0}, peer="torch-eager")], {"a": 12.0})
    svg = render_svg(chart).decode()
    assert not legend_overflows(svg)
    assert "…" not in "".join(_legend_texts(svg))
    shown = " ".join(_legend_texts(svg))
    assert all(word in shown for t in labels[:-1] for word in t.split())
    assert "".join(t for t in _legend_texts(svg) if set(t) == {"x"}) == "x" * 300
    height = float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))
    assert max(float(y) for y in re.findall(r'<text x="[^"]+" y="([^"]+)" font-size="11">', svg)) < height


def test_each_peer_has_one_colour_whatever_the_chart() -> None:
    def colour_of(svg: str, label: str) -> str:
        return re.search(rf'stroke="(#[0-9a-f]+)"[^>]*/>\n<rect[^>]*><title>{re.escape(label)}:', svg).group(1)

    one = render_svg(Chart("a", ["x", "y"], [Series("torch-eager", "peer", {"x": 1.0, "y": 2.0}, peer="torch-eager"),
                                              Series("torch-compile", "peer", {"x": 1.0, "y": 2.0}, peer="torch-compile")]))
    two = render_svg(Chart("b", ["x", "y"], [Series("torch-compile", "peer", {"x": 1.0, "y": 2.0}, peer="torch-compile"),
                                              Series("torch-eager", "peer", {"x": 1.0, "y": 2.0}, peer="torch-eager")]))
    for name in ("torch-eager", "torch-compile"):
        assert colour_of(one.decode(), name) == colour_of(two.decode(), name) == PEER_COLOURS[name]
    assert not set(PEER_COLOURS.values()) & set(_REALIZATION_COLOURS)
    assert not set(_PEER_COLOURS) & set(_REALIZATION_COLOURS)


def test_the_axis_spans_the_band_with_the_ceiling_drawn() -> None:
    chart = Chart("t", ["a", "b"], [Series("r", "realization", {"a": 3000.0, "b": 3100.0}),
                                    Series("p", "peer", {"a": 2900.0, "b": 3050.0})],
                  {"a": 3400.0, "b": 3400.0}, from_zero=False)
    svg = render_svg(chart).decode()
    ticks = [float(t.replace(",", "")) for t in re.findall(r'text-anchor="end">([\d,.]+)</text>', svg)]
    assert min(ticks) > 2000 and max(ticks) >= 3400
    assert "ceiling" in svg and 'stroke-dasharray="8 3 2 3"' in svg


def test_speedup_is_the_fastest_realization_over_each_peer_per_shape() -> None:
    chart = Chart("t", ["a", "b"], [Series("r1", "realization", {"a": 300.0, "b": 100.0}),
                                    Series("r2", "realization", {"a": 200.0, "b": 400.0}),
                                    Series("wrong", "realization", {"a": 900.0}, hollow=True),
                                    Series("torch-eager", "peer", {"a": 150.0, "b": 200.0}, peer="torch-eager")])
    speedup = speedup_chart(chart, "s")
    assert speedup is not None and speedup.level == 1.0
    assert speedup.series[0].values == {"a": 2.0, "b": 2.0} and speedup.series[0].peer == "torch-eager"


def test_primitives_list_the_realizations_they_are_used_inside(synthetic_site) -> None:
    text = visible_text(synthetic_site.html(synthetic_site.pages["primitive:warp-reduce"]))
    assert "Used inside these realizations" in text
    assert synthetic_site.generated.data.catalog.realizations["row-sum/composed"].title in text
    op = visible_text(synthetic_site.html(synthetic_site.pages["operator:row-sum"]))
    assert "used inside 1" in op


def test_used_inside_and_stage_kernels_of_the_catalog() -> None:
    cat = epldb.load(REPO)
    staged = {u.realization.id for u in used_inside(cat, "tma-bulk-copy")}
    assert "softmax/online-staged" in staged and len(staged) >= 9
    assert all(not r.id.startswith("tma-bulk-copy/") for r in cat.realizations.values() if r.id in staged)
    kernels = {r.id for r in stage_kernels(cat, cat.operators["attention-row-statistics"])}
    assert "split-state-merge/split-kv" in kernels
    assert stage_kernels(cat, cat.operators["softmax"]) == []  # it has realizations of its own
