"""Static SVG line charts with byte-for-byte deterministic output, each written beside a CSV of
exactly the data it plots.

The SVG is written directly (no plotting library): a chart costs well under a millisecond and a few
kilobytes, where a plotting library's took a tenth of a second and glyphs drawn as paths made it 70 KB.
Text is SVG text in a common sans-serif stack, laid out from a per-character width estimate with
room to spare; labels too long for their place are shortened with an ellipsis and keep their whole
text in a tooltip, as does every point (its series, shape and value). Determinism: fixed order, fixed
colours, fixed number formatting, no date or random id.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

# Realizations: saturated colours, solid lines. Peers: dashed, muted. Ceiling: black dash-dot.
_REALIZATION_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                        "#e377c2", "#bcbd22", "#393b79"]
_PEER_COLOURS = ["#7f7f7f", "#a0522d", "#556b2f", "#708090", "#b8860b"]

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


# Layout, in CSS pixels.
_FONT = "DejaVu Sans, Verdana, Geneva, Arial, sans-serif"
_CHAR_W = 0.62  # average advance of a sans-serif character, in ems (generous: Verdana's is about 0.6)
_TICK_PX, _TITLE_PX, _LEGEND_PX = 11, 13, 11
_PLOT_H, _TOP, _LEFT, _RIGHT = 320, 34, 82, 24
_LEGEND_ROW = 20
_GRID, _AXIS, _STALE = "#dddddd", "#444444", "#ececec"


def _text_w(text: str, px: float) -> float:
    return len(text) * _CHAR_W * px


def _fit(text: str, px: float, width: float) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` pixels."""
    if _text_w(text, px) <= width:
        return text
    keep = max(int(width / (_CHAR_W * px)) - 1, 1)
    return text[:keep] + "…"


def _label(text: str, px: float, width: float) -> str:
    """The escaped content of a text element showing ``text`` in ``width`` pixels; when shortened,
    with the whole text as its tooltip."""
    shown = _fit(text, px, width)
    tip = f"<title>{escape(text)}</title>" if shown != text else ""
    return tip + escape(shown)


def _num(v: float) -> str:
    """A coordinate: two decimals, no trailing zeros (stable across platforms)."""
    out = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if out == "-0" else out


def _value(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.3g}"


def _nice_ticks(top: float) -> list[float]:
    """0 to at least ``top`` in 4-8 round steps (1, 2, 2.5 or 5 times a power of ten)."""
    if not math.isfinite(top) or top <= 0:
        return [0.0, 1.0]
    raw = top / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


@dataclass
class _Entry:
    label: str
    colour: str
    dash: str
    marker: str  # "circle" | "square" | "cross" | "bar" | "band"


def _marker(kind: str, x: float, y: float, colour: str, tip: str, *, hollow: bool = False) -> str:
    title = f"<title>{escape(tip)}</title>" if tip else ""
    if kind == "square":
        return (f'<rect x="{_num(x - 3.5)}" y="{_num(y - 3.5)}" width="7" height="7" fill="{colour}">'
                f"{title}</rect>")
    if kind == "cross":
        return (f'<path d="M{_num(x - 3.5)} {_num(y - 3.5)}l7 7m0 -7l-7 7" stroke="{colour}" stroke-width="1.4" '
                f'fill="none">{title}</path>')
    if kind == "bar":
        return (f'<path d="M{_num(x - 9)} {_num(y)}h18" stroke="{colour}" stroke-width="1.6">{title}</path>')
    if hollow:  # a stale run's point: open, so it reads apart from the band's fresh neighbours
        return (f'<circle cx="{_num(x)}" cy="{_num(y)}" r="5" fill="white" stroke="{colour}" stroke-width="1.4">'
                f"{title}</circle>")
    return f'<circle cx="{_num(x)}" cy="{_num(y)}" r="4" fill="{colour}">{title}</circle>'


def render_svg(chart: Chart) -> bytes:
    n = max(len(chart.shapes), 1)
    ticks = [chart.tick(s) for s in chart.shapes]
    longest = max((len(t) for t in ticks), default=0)
    rotate = n > 4 or longest > 10
    stale = [i for i, s in enumerate(chart.shapes) if s in chart.stale]
    pos = {s: i for i, s in enumerate(chart.shapes)}

    # What is drawn, in legend order: series, ceiling, size-matched reference, stale band.
    lines: list[tuple[_Entry, list[tuple[int, float]], str]] = []  # entry, points, tooltip prefix
    r_i = p_i = 0
    for s in chart.series:
        pts = sorted((pos[k], v) for k, v in s.values.items() if k in pos)
        if not pts:
            continue
        if s.kind == "peer":
            colour = _PEER_COLOURS[(p_i if s.colour is None else s.colour) % len(_PEER_COLOURS)]
            p_i += 1
            lines.append((_Entry(f"{s.label} (peer)", colour, "6 3", "square"), pts, s.label))
        else:
            colour = _REALIZATION_COLOURS[(r_i if s.colour is None else s.colour) % len(_REALIZATION_COLOURS)]
            r_i += 1
            lines.append((_Entry(s.label, colour, "", "circle"), pts, s.label))
    ceil = sorted((pos[k], v) for k, v in chart.ceiling.items() if k in pos)
    if ceil:
        lines.append((_Entry(chart.ceiling_label, "#000000", "8 3 2 3", "bar" if len(ceil) == 1 else ""), ceil,
                      chart.ceiling_label))
    ref = sorted((pos[k], v) for k, v in chart.reference.items() if k in pos)
    if ref:
        lines.append((_Entry(chart.reference_label, "#555555", "2 3", "cross"), ref, chart.reference_label))
    legend = [e for e, _, _ in lines] + ([_Entry(chart.stale_label, _STALE, "", "band")] if stale else [])

    # Geometry: the plot's height is fixed; the width grows with the shapes and the title; below the
    # plot, the tick labels (rotated 30 degrees when many or long) and the legend rows.
    width = min(max(600 + 50 * n, 130 + _CHAR_W * _TITLE_PX * len(chart.title)), 1000)
    ncols = min(3, max(len(legend), 1))
    col_w = (width - 2 * 16) / ncols
    legend_rows = -(-len(legend) // ncols) if legend else 0
    ticks_h = (_text_w("x" * longest, _TICK_PX) * 0.5 + 14) if rotate else 18
    below = 10 + ticks_h + (18 if chart.xlabel else 0) + 8 + _LEGEND_ROW * legend_rows + 6
    height = _TOP + _PLOT_H + below
    # A rotated first tick label reaches left of the plot by cos 30° of its length: room for it.
    span = max(n - 1, 0) + 0.8  # the x axis in shape steps: 0.4 of a step either side
    left = max(_LEFT, 0.87 * _text_w(ticks[0], _TICK_PX) + 8 - 0.4 / span * (width - _LEFT - _RIGHT)
               if rotate and ticks else _LEFT)
    width += left - _LEFT
    plot_w = width - left - _RIGHT
    values = [v for _, pts, _ in lines for _, v in pts if math.isfinite(v)]
    yticks = _nice_ticks(max(values, default=1.0) * 1.04)
    ytop = yticks[-1]

    def x_at(i: float) -> float:
        return left + (i + 0.4) / span * plot_w

    def y_at(v: float) -> float:
        return _TOP + _PLOT_H * (1 - v / ytop)

    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="{_FONT}" font-size="{_TICK_PX}" role="img">',
        f"<title>{escape(chart.title)}</title>",
        f'<rect width="100%" height="100%" fill="white"/>',
    ]
    half = 0.5 / span * plot_w
    for i in stale:
        out.append(f'<rect x="{_num(x_at(i) - half)}" y="{_TOP}" width="{_num(2 * half)}" height="{_PLOT_H}" '
                   f'fill="{_STALE}"/>')
    for v in yticks:
        y = y_at(v)
        out.append(f'<path d="M{_num(left)} {_num(y)}H{_num(left + plot_w)}" stroke="{_GRID}" stroke-width="0.8"/>')
        out.append(f'<text x="{_num(left - 6)}" y="{_num(y + 4)}" text-anchor="end">{escape(_value(v))}</text>')
    out.append(f'<path d="M{_num(left)} {_TOP}V{_TOP + _PLOT_H}H{_num(left + plot_w)}" stroke="{_AXIS}" '
               f'stroke-width="1" fill="none"/>')
    base = _TOP + _PLOT_H
    room = 2 * half if not rotate else 1e9
    for i, t in enumerate(ticks):
        x = x_at(i)
        out.append(f'<path d="M{_num(x)} {base}v4" stroke="{_AXIS}"/>')
        placed = (f'text-anchor="end" transform="rotate(-30 {_num(x)} {base + 16})"' if rotate
                  else 'text-anchor="middle"')
        out.append(f'<text x="{_num(x)}" y="{base + 16}" {placed}>{_label(t, _TICK_PX, room)}</text>')
    ylabel_y = _TOP + _PLOT_H / 2
    ylabel_x = left - 66
    out.append(f'<text x="{_num(ylabel_x)}" y="{_num(ylabel_y)}" text-anchor="middle" font-size="10" '
               f'transform="rotate(-90 {_num(ylabel_x)} {_num(ylabel_y)})">'
               f'{_label(chart.ylabel, 10, _PLOT_H + 20)}</text>')
    if chart.xlabel:
        out.append(f'<text x="{_num(left + plot_w / 2)}" y="{_num(base + ticks_h + 22)}" '
                   f'text-anchor="middle">{escape(chart.xlabel)}</text>')
    out.append(f'<text x="12" y="20" font-size="{_TITLE_PX}" font-weight="bold">'
               f'{_label(chart.title, _TITLE_PX, width - 2 * 12)}</text>')

    for entry, pts, name in lines:
        d = "M" + "L".join(f"{_num(x_at(i))} {_num(y_at(v))}" for i, v in pts)
        dash = f' stroke-dasharray="{entry.dash}"' if entry.dash else ""
        widthpx = 1.8 if entry.marker == "circle" else 1.4
        if len(pts) > 1:
            out.append(f'<path d="{d}" fill="none" stroke="{entry.colour}" stroke-width="{widthpx}"{dash}/>')
        for i, v in pts:
            tip = f"{name}: {ticks[i]}: {_value(v)}"
            if entry.marker:
                out.append(_marker(entry.marker, x_at(i), y_at(v), entry.colour, tip, hollow=i in stale))
            else:  # a line without markers: an invisible target for the tooltip
                out.append(f'<circle cx="{_num(x_at(i))}" cy="{_num(y_at(v))}" r="4" fill="transparent">'
                           f"<title>{escape(tip)}</title></circle>")

    top = base + ticks_h + (18 if chart.xlabel else 0) + 18
    for k, e in enumerate(legend):
        row, col = divmod(k, ncols)
        used = min(ncols, len(legend) - row * ncols)
        x0 = width / 2 - used * col_w / 2 + col * col_w
        y = top + row * _LEGEND_ROW
        if e.marker == "band":
            out.append(f'<rect x="{_num(x0)}" y="{_num(y - 6)}" width="24" height="12" fill="{e.colour}"/>')
        else:
            dash = f' stroke-dasharray="{e.dash}"' if e.dash else ""
            out.append(f'<path d="M{_num(x0)} {_num(y)}h24" stroke="{e.colour}" stroke-width="1.6"{dash}/>')
            if e.marker in ("circle", "square", "cross"):
                out.append(_marker(e.marker, x0 + 12, y, e.colour, ""))
        out.append(f'<text x="{_num(x0 + 30)}" y="{_num(y + 4)}" font-size="{_LEGEND_PX}">'
                   f'{_label(e.label, _LEGEND_PX, col_w - 36)}</text>')
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode("utf-8")
