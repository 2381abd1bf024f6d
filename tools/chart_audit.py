"""Count what the generated charts get wrong: charts whose realization series are single dots
while the chart spans several shapes, charts with no realization series at all, and legends
whose text runs past the SVG's viewBox (by the same per-character estimate the charts lay out with)
or was cut short to stay inside it.

Reads site_src/generated/ (``python3 -m epldb site`` writes it); each chart is an SVG beside the
CSV of exactly what it plots. History charts (x = runs, not shapes) are left out of the first two
counts: one point per run is what they mean to show; nor are speedup charts (one series per peer).

    python3 tools/chart_audit.py [site_src/generated]
"""

from __future__ import annotations

import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

CHAR_W = 0.62  # ems per character: epldb/site/charts.py's estimate
_VIEWBOX = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)"')
# A legend label (11 px) cut short with an ellipsis, its whole text left to a tooltip.
_SHORTENED = re.compile(r'font-size="11">(?:<title>[^<]*</title>)?[^<]*…')
_TEXT = re.compile(r'<text x="([\d.-]+)" y="([\d.-]+)"([^>]*)>(.*?)</text>', re.S)


def _plain(content: str) -> str:
    content = re.sub(r"<title>.*?</title>", "", content, flags=re.S)
    content = re.sub(r"<[^>]+>", "", content)
    return content.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


def legend_overflows(svg: str) -> bool:
    """Whether any unrotated text element reaches past the viewBox's right or bottom edge."""
    m = _VIEWBOX.search(svg)
    if not m:
        return False
    width, height = float(m.group(1)), float(m.group(2))
    for x, y, attrs, content in _TEXT.findall(svg):
        if "rotate" in attrs:
            continue
        px = float(re.search(r'font-size="([\d.]+)"', attrs).group(1)) if "font-size" in attrs else 11.0
        w = len(_plain(content)) * CHAR_W * px
        x0 = float(x) - (w if "end" in attrs else w / 2 if "middle" in attrs else 0)
        if x0 < 0 or x0 + w > width + 0.5 or float(y) > height:
            return True
    return False


def audit(root: Path) -> dict[str, int]:
    counts = {"charts": 0, "shape charts": 0, "speedup charts": 0, "single-dot series": 0, "no realization series": 0,
              "legend outside viewBox": 0, "legend label shortened": 0}
    for svg in sorted(root.rglob("charts/*.svg")):
        counts["charts"] += 1
        text = svg.read_text(encoding="utf-8")
        if legend_overflows(text):
            counts["legend outside viewBox"] += 1
        if _SHORTENED.search(text):
            counts["legend label shortened"] += 1
        table = svg.with_suffix(".csv")
        if not table.exists():
            continue
        with table.open(encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, [])
            rows = list(reader)
        if len(header) < 3 or header[2] != "shape":
            continue  # a history chart: its x is runs
        if len(header) > 3 and header[3] == "speedup":  # a speedup chart: peers only, by design
            counts["speedup charts"] += 1
            continue
        counts["shape charts"] += 1
        xs = {r[2] for r in rows if r[1] in ("realization", "peer")}
        points: dict[str, int] = defaultdict(int)
        for r in rows:
            if r[1] == "realization":
                points[r[0]] += 1
        if not points:
            counts["no realization series"] += 1
        elif len(xs) > 1 and all(n == 1 for n in points.values()):
            counts["single-dot series"] += 1
    return counts


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "site_src/generated")
    for name, n in audit(root).items():
        print(f"{name}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
