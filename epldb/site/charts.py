"""Static SVG line charts with byte-for-byte deterministic output, each written beside a CSV of
exactly the data it plots.

The SVG is written directly (no plotting library): a chart costs well under a millisecond and a few
kilobytes, where a plotting library's took a tenth of a second and glyphs drawn as paths made it 70 KB.
Text is SVG text in a common sans-serif stack, laid out from a per-character width estimate with
room to spare; labels too long for their place are shortened with an ellipsis and keep their whole
text in a tooltip, as does every point (its series, shape and value). Determinism: fixed order, fixed
colours, fixed number formatting, no date or random id.

Colours carry identity across the site: a peer is drawn in its own colour on every chart (torch
eager always the same grey, torch.compile always the same brown, ...), from a palette no
realization uses. Legends are laid out in full, wrapped onto as many rows and lines as they need,
and the SVG grows to hold them: a shortened legend would hide which series is which.
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
# Each peer implementation's colour on every chart of the site, by its name in the evidence
# (epldb/contracts/peers.py: a row's subject is '<contract>/<peer name>'). A peer not named here
# gets a muted colour picked from its name, so it too keeps one colour everywhere.
PEER_COLOURS = {"torch-eager": "#7f7f7f", "torch-compile": "#a0522d", "liger-kernel": "#6a3d9a", "cupy": "#556b2f"}
_OTHER_PEER_COLOURS = ["#708090", "#b8860b", "#6b4f7a", "#4f6f6f"]


@dataclass
class Series:
    label: str
    kind: str  # "realization" | "peer"
    values: dict[str, float] = field(default_factory=dict)  # shape → GB/s
    colour: int | None = None  # a realization's index into its palette; None: next in order
    peer: str = ""  # a peer's implementation name (torch-eager, ...): its fixed colour
    hollow: bool = False  # open markers: the points failed verification (timed, but wrong)


def peer_colour_of(name: str) -> str:
    """The fixed colour of a peer implementation, by its name (torch-eager, torch-compile, cupy)."""
    if name in PEER_COLOURS:
        return PEER_COLOURS[name]
    return _OTHER_PEER_COLOURS[sum(name.encode("utf-8")) % len(_OTHER_PEER_COLOURS)]


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
    value_name: str = "gbps"  # what the y values are: the CSV's column name for them
    # x value → its tick label where it differs (a run id shown as its date and commit)
    tick_labels: dict[str, str] = field(default_factory=dict)
    # x values drawn as stale (a shaded band, hollow markers): runs of a kernel that has changed since
    stale: list[str] = field(default_factory=list)
    stale_label: str = "stale: the kernel has changed since"
    # A horizontal line at one value across the plot (a speedup chart's 1x: level with the peer)
    level: float | None = None
    level_label: str = ""
    # The y axis from zero, or (False) over the band the values span, with the ceiling and level
    # inside it: where realizations differ by a tenth, a zero-based axis shows one flat line.
    from_zero: bool = True

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
    w.writerow(["series", "kind", chart.x_name, chart.value_name])
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
    if chart.level is not None:
        w.writerow([chart.level_label, "level", "", f"{chart.level:.6g}"])
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


def _nice_ticks(top: float, bottom: float = 0.0) -> list[float]:
    """``bottom`` (rounded down) to at least ``top`` in 4-8 round steps (1, 2, 2.5 or 5 times a
    power of ten)."""
    if not math.isfinite(top) or top <= bottom:
        return [bottom, bottom + 1.0] if math.isfinite(bottom) else [0.0, 1.0]
    raw = (top - bottom) / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(bottom / step + 1e-9)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(first, n + 1)]


def _y_range(values: list[float], from_zero: bool) -> list[float]:
    """The y ticks: from zero, or over the band ``values`` span with a margin of a tenth of it
    (from zero still when the band reaches below a third of the top: then zero is near anyway)."""
    top = max(values, default=1.0)
    low = min(values, default=0.0)
    if from_zero or low <= 0 or low < top / 3:
        return _nice_ticks(top * 1.04)
    margin = (top - low) * 0.1 or top * 0.05
    return _nice_ticks(top + margin, low - margin)


def _wrap(text: str, px: float, width: float) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` pixels (a word longer than the
    width is broken inside it): a legend label is shown whole, never shortened."""
    per_line = max(int(width / (_CHAR_W * px)), 1)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        while len(word) > per_line:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= per_line:
            line += " " + word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return lines


@dataclass
class _Placed:
    """A legend entry's place: its key's left edge, its first line's baseline, its text lines."""
    x: float
    y: float
    lines: list[str]


_KEY_W = 30  # the key (a line sample and a marker) and the gap before the label
_ENTRY_GAP = 18


def _legend_layout(labels: list[str], width: float, top: float) -> tuple[list[_Placed], float]:
    """Entries flowed into rows within ``width`` (margins of 16), each row centred; a label too
    long for a row of its own wraps onto more lines. Returns the places and the legend's height."""
    avail = width - 2 * 16
    text_room = avail - _KEY_W
    wrapped = [_wrap(t, _LEGEND_PX, text_room) for t in labels]
    widths = [_KEY_W + max(_text_w(ln, _LEGEND_PX) for ln in ls) for ls in wrapped]
    rows: list[list[int]] = []
    used = 0.0
    for i, w in enumerate(widths):
        if rows and used + _ENTRY_GAP + w <= avail and len(wrapped[rows[-1][0]]) == 1 and len(wrapped[i]) == 1:
            rows[-1].append(i)
            used += _ENTRY_GAP + w
        else:
            rows.append([i])
            used = w
    placed: list[_Placed | None] = [None] * len(labels)
    y = top
    for row in rows:
        row_w = sum(widths[i] for i in row) + _ENTRY_GAP * (len(row) - 1)
        x = width / 2 - row_w / 2
        for i in row:
            placed[i] = _Placed(x, y, wrapped[i])
            x += widths[i] + _ENTRY_GAP
        y += _LEGEND_ROW + _LINE * (max(len(wrapped[i]) for i in row) - 1)
    return [p for p in placed if p is not None], y - top


_LINE = 14  # a wrapped legend label's line spacing


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
            colour = (peer_colour_of(s.peer) if s.peer else
                      _PEER_COLOURS[(p_i if s.colour is None else s.colour) % len(_PEER_COLOURS)])
            p_i += 1
            lines.append((_Entry(f"{s.label} (peer)", colour, "6 3", "square"), pts, s.label))
        else:
            colour = _REALIZATION_COLOURS[(r_i if s.colour is None else s.colour) % len(_REALIZATION_COLOURS)]
            r_i += 1
            lines.append((_Entry(s.label, colour, "", "hollow" if s.hollow else "circle"), pts, s.label))
    ceil = sorted((pos[k], v) for k, v in chart.ceiling.items() if k in pos)
    if ceil:
        lines.append((_Entry(chart.ceiling_label, "#000000", "8 3 2 3", "bar" if len(ceil) == 1 else ""), ceil,
                      chart.ceiling_label))
    ref = sorted((pos[k], v) for k, v in chart.reference.items() if k in pos)
    if ref:
        lines.append((_Entry(chart.reference_label, "#555555", "2 3", "cross"), ref, chart.reference_label))
    legend = [e for e, _, _ in lines] + ([_Entry(chart.stale_label, _STALE, "", "band")] if stale else [])
    if chart.level is not None:
        legend.append(_Entry(chart.level_label, "#000000", "3 3", ""))

    # Geometry: the plot's height is fixed; the width grows with the shapes and the title; below the
    # plot, the tick labels (rotated 30 degrees when many or long) and the legend rows.
    width = min(max(600 + 50 * n, 130 + _CHAR_W * _TITLE_PX * len(chart.title)), 1000)
    ticks_h = (_text_w("x" * longest, _TICK_PX) * 0.5 + 14) if rotate else 18
    # A rotated first tick label reaches left of the plot by cos 30° of its length: room for it.
    span = max(n - 1, 0) + 0.8  # the x axis in shape steps: 0.4 of a step either side
    left = max(_LEFT, 0.87 * _text_w(ticks[0], _TICK_PX) + 8 - 0.4 / span * (width - _LEFT - _RIGHT)
               if rotate and ticks else _LEFT)
    width += left - _LEFT
    plot_w = width - left - _RIGHT
    legend_top = _TOP + _PLOT_H + ticks_h + (18 if chart.xlabel else 0) + 18
    legend_at, legend_h = _legend_layout([e.label for e in legend], width, legend_top)
    height = legend_top + legend_h + 2
    values = [v for _, pts, _ in lines for _, v in pts if math.isfinite(v)]
    if chart.level is not None:
        values.append(chart.level)
    yticks = _y_range(values, chart.from_zero)
    ybottom, ytop = yticks[0], yticks[-1]

    def x_at(i: float) -> float:
        return left + (i + 0.4) / span * plot_w

    def y_at(v: float) -> float:
        return _TOP + _PLOT_H * (1 - (v - ybottom) / (ytop - ybottom))

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
    # Grid lines and tick marks share their stroke through a group: a chart draws dozens of them,
    # and the site's weight is bounded (tests/site/test_site_weight.py).
    out.append(f'<g stroke="{_GRID}" stroke-width="0.8">'
               + "".join(f'<path d="M{_num(left)} {_num(y_at(v))}H{_num(left + plot_w)}"/>' for v in yticks) + "</g>")
    for v in yticks:
        out.append(f'<text x="{_num(left - 6)}" y="{_num(y_at(v) + 4)}" text-anchor="end">{escape(_value(v))}</text>')
    out.append(f'<path d="M{_num(left)} {_TOP}V{_TOP + _PLOT_H}H{_num(left + plot_w)}" stroke="{_AXIS}" '
               f'stroke-width="1" fill="none"/>')
    base = _TOP + _PLOT_H
    room = 2 * half if not rotate else 1e9
    out.append(f'<g stroke="{_AXIS}">' + "".join(f'<path d="M{_num(x_at(i))} {base}v4"/>' for i in range(len(ticks)))
               + "</g>")
    for i, t in enumerate(ticks):
        x = x_at(i)
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

    if chart.level is not None:
        out.append(f'<path d="M{_num(left)} {_num(y_at(chart.level))}H{_num(left + plot_w)}" stroke="#000000" '
                   f'stroke-width="1" stroke-dasharray="3 3"><title>{escape(chart.level_label)}</title></path>')
    for entry, pts, name in lines:
        d = "M" + "L".join(f"{_num(x_at(i))} {_num(y_at(v))}" for i, v in pts)
        dash = f' stroke-dasharray="{entry.dash}"' if entry.dash else ""
        widthpx = 1.8 if entry.marker in ("circle", "hollow") else 1.4
        if len(pts) > 1:
            out.append(f'<path d="{d}" fill="none" stroke="{entry.colour}" stroke-width="{widthpx}"{dash}/>')
        for i, v in pts:
            tip = f"{name}: {ticks[i]}: {_value(v)}"
            if entry.marker == "hollow":  # failed verification: open markers, the tooltip says so
                out.append(_marker("circle", x_at(i), y_at(v), entry.colour, tip, hollow=True))
            elif entry.marker:
                out.append(_marker(entry.marker, x_at(i), y_at(v), entry.colour, tip, hollow=i in stale))
            else:  # a line without markers: an invisible target for the tooltip
                out.append(f'<circle cx="{_num(x_at(i))}" cy="{_num(y_at(v))}" r="4" fill="transparent">'
                           f"<title>{escape(tip)}</title></circle>")

    for e, at in zip(legend, legend_at):
        x0, y = at.x, at.y
        if e.marker == "band":
            out.append(f'<rect x="{_num(x0)}" y="{_num(y - 6)}" width="24" height="12" fill="{e.colour}"/>')
        else:
            dash = f' stroke-dasharray="{e.dash}"' if e.dash else ""
            out.append(f'<path d="M{_num(x0)} {_num(y)}h24" stroke="{e.colour}" stroke-width="1.6"{dash}/>')
            if e.marker in ("circle", "square", "cross"):
                out.append(_marker(e.marker, x0 + 12, y, e.colour, ""))
            elif e.marker == "hollow":
                out.append(_marker("circle", x0 + 12, y, e.colour, "", hollow=True))
        for k, text in enumerate(at.lines):
            out.append(f'<text x="{_num(x0 + _KEY_W)}" y="{_num(y + 4 + k * _LINE)}" font-size="{_LEGEND_PX}">'
                       f'{escape(text)}</text>')
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode("utf-8")
