"""Static SVG charts (matplotlib, Agg, no pyplot state) with byte-for-byte deterministic output, each
written beside a CSV of exactly the data it plots.

Determinism: a fixed ``svg.hashsalt`` (element ids), no date in the metadata, glyphs drawn as paths
from matplotlib's bundled DejaVu Sans (no dependency on the fonts of the machine that builds or the
browser that views), series in a fixed order with fixed colours.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

# Realizations: saturated colours, solid lines. Peers: dashed, muted. Ceiling: black dash-dot.
_REALIZATION_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                        "#e377c2", "#bcbd22", "#393b79"]
_PEER_COLOURS = ["#7f7f7f", "#a0522d", "#556b2f", "#708090", "#b8860b"]

_RC = {
    "svg.hashsalt": "epldb-site",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 10.0,
    "axes.titlesize": 11.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "path.simplify": False,
}


@dataclass
class Series:
    label: str
    kind: str  # "realization" | "peer"
    values: dict[str, float] = field(default_factory=dict)  # shape → GB/s
    colour: int | None = None  # index into the kind's palette; None: next in order


def realization_colour(i: int) -> int:
    return i % len(_REALIZATION_COLOURS)


def peer_colour(i: int) -> int:
    return i % len(_PEER_COLOURS)


@dataclass
class Chart:
    title: str
    shapes: list[str]  # x axis, in order
    series: list[Series]
    ceiling: dict[str, float] = field(default_factory=dict)  # shape → GB/s
    ceiling_label: str = "ceiling"
    # shape → GB/s of the ceiling's size-matched reference at that shape's own byte count (same run:
    # the read-only kernel or the copy), if measured
    reference: dict[str, float] = field(default_factory=dict)
    reference_label: str = "read kernel at this size"
    ylabel: str = "GB/s (minimal bytes moved / median time)"
    xlabel: str = ""  # the tick labels name the shape variables
    x_name: str = "shape"  # what the x values are: the CSV's column name for them
    # x value → its tick label where it differs (a run id shown as its date and commit)
    tick_labels: dict[str, str] = field(default_factory=dict)
    # x values drawn as stale (a shaded band, hollow markers): runs of a kernel that has changed since
    stale: list[str] = field(default_factory=list)
    stale_label: str = "stale: the kernel has changed since"

    def tick(self, x: str) -> str:
        return self.tick_labels.get(x, x)


def write_chart(chart: Chart, svg_path: Path, csv_path: Path) -> None:
    """Write the chart's SVG and the CSV of its data (series, shape, gbps), deterministically."""
    svg_path.parent.mkdir(parents=True, exist_ok=True)
    svg_path.write_bytes(render_svg(chart))
    csv_path.write_text(chart_csv(chart), encoding="utf-8", newline="")


def chart_csv(chart: Chart) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series", "kind", chart.x_name, "gbps"])
    for s in chart.series:
        for shape in chart.shapes:
            if shape in s.values:
                w.writerow([s.label, s.kind, shape, f"{s.values[shape]:.6g}"])
    for shape in chart.shapes:
        if shape in chart.ceiling:
            w.writerow([chart.ceiling_label, "ceiling", shape, f"{chart.ceiling[shape]:.6g}"])
    for shape in chart.shapes:
        if shape in chart.reference:
            w.writerow([chart.reference_label, "reference", shape, f"{chart.reference[shape]:.6g}"])
    for x in chart.shapes:
        if x in chart.stale:
            w.writerow([chart.stale_label, "stale", x, ""])
    return buf.getvalue()


def render_svg(chart: Chart) -> bytes:
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        n = max(len(chart.shapes), 1)
        ticks = [chart.tick(s) for s in chart.shapes]
        rotate = n > 4 or max((len(t) for t in ticks), default=0) > 10
        stale = [i for i, s in enumerate(chart.shapes) if s in chart.stale]
        entries = len(chart.series) + (1 if chart.ceiling else 0) + (1 if chart.reference else 0) + (1 if stale else 0)
        ncols = min(3, max(entries, 1))
        legend_rows = -(-entries // ncols) if entries else 0
        # Fixed layout (no tight/constrained layout: each costs extra draws): the plot's height is
        # constant, the figure grows by the tick labels and the legend rows below it.
        plot_h, top_h = 3.2, 0.45
        longest = max((len(t) for t in ticks), default=0)
        ticks_h = 0.1 + 0.045 * longest if rotate else 0.25  # a 30° label rises by half its length
        below_h = 0.3 + ticks_h + (0.25 if chart.xlabel else 0.0) + 0.22 * legend_rows + (0.1 if legend_rows else 0.0)
        width = min(max(6.0 + 0.5 * n, 1.3 + 0.09 * len(chart.title)), 10.0)  # a long title widens a narrow chart
        height = plot_h + top_h + below_h
        fig = Figure(figsize=(width, height), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.95 / width, below_h / height, 1 - 1.2 / width, plot_h / height))
        xs = list(range(len(chart.shapes)))
        pos = {s: i for i, s in enumerate(chart.shapes)}
        for i, x in enumerate(stale):
            ax.axvspan(x - 0.5, x + 0.5, color="#ececec", linewidth=0, zorder=0,
                       label=chart.stale_label if i == 0 else None)
        r_i = p_i = 0
        for s in chart.series:
            pts = [(pos[k], v) for k, v in s.values.items() if k in pos]
            pts.sort()
            if not pts:
                continue
            if s.kind == "peer":
                colour = _PEER_COLOURS[(p_i if s.colour is None else s.colour) % len(_PEER_COLOURS)]
                p_i += 1
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="--", marker="s", markersize=4,
                        linewidth=1.4, color=colour, label=f"{s.label} (peer)")
            else:
                colour = _REALIZATION_COLOURS[(r_i if s.colour is None else s.colour) % len(_REALIZATION_COLOURS)]
                r_i += 1
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="-", marker="o", markersize=4,
                        linewidth=1.8, color=colour, label=s.label)
            hollow = [p for p in pts if p[0] in stale]
            if hollow:  # a stale run's point: open, so it reads apart from the band's fresh neighbours
                ax.plot([p[0] for p in hollow], [p[1] for p in hollow], linestyle="none", marker="o", markersize=6,
                        markerfacecolor="white", markeredgewidth=1.4, color=colour)
        ceil = sorted((pos[k], v) for k, v in chart.ceiling.items() if k in pos)
        if ceil:
            ax.plot([c[0] for c in ceil], [c[1] for c in ceil], linestyle="-.", color="black", linewidth=1.3,
                    marker="_" if len(ceil) == 1 else None, markersize=18, label=chart.ceiling_label)
        ref = sorted((pos[k], v) for k, v in chart.reference.items() if k in pos)
        if ref:
            ax.plot([r[0] for r in ref], [r[1] for r in ref], linestyle=":", color="#555555", linewidth=1.3,
                    marker="x", markersize=5, label=chart.reference_label)
        ax.set_xticks(xs)
        ax.set_xticklabels(ticks, rotation=30 if rotate else 0, ha="right" if rotate else "center")
        ax.set_xlim(-0.4, max(n - 1, 0) + 0.4)
        ax.set_ylim(bottom=0)
        if chart.xlabel:
            ax.set_xlabel(chart.xlabel)
        ax.set_ylabel(chart.ylabel)
        ax.set_title(chart.title, loc="left")
        ax.grid(True, axis="y", color="#dddddd", linewidth=0.8)
        ax.set_axisbelow(True)
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.02 / height), ncols=ncols,
                       frameon=False, fontsize=9)
        out = io.BytesIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": "epldb site (matplotlib)"})
    return out.getvalue()
