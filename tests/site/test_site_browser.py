"""The built site opened in a real browser, from file://, with no network: Debian's chromium, headless.

Skipped only where chromium is absent (CI installs it: `apt-get install -y chromium`)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from epldb.site import layout

CHROMIUM = shutil.which("chromium") or (("/usr/bin/chromium") if Path("/usr/bin/chromium").exists() else None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars"]


def chromium(tmp: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                          capture_output=True, text=True, timeout=120, check=False)


def screenshot(tmp: Path, page: Path, name: str) -> Path:
    png = tmp / f"{name}.png"
    proc = chromium(tmp, page.as_uri(), f"--screenshot={png}", "--window-size=1280,2000")
    assert png.is_file(), f"no screenshot of {page}:\n{proc.stderr[-2000:]}"
    return png


def dump_dom(tmp: Path, page: Path) -> str:
    proc = chromium(tmp, page.as_uri(), "--dump-dom", "--virtual-time-budget=3000")
    assert proc.returncode == 0 and "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


# --- pixels -------------------------------------------------------------------------------------


def pixels(png: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes): Pillow if installed, else a small PNG decoder."""
    try:
        from PIL import Image
    except ImportError:
        return _decode_png(png.read_bytes())
    im = Image.open(png).convert("RGB")
    w, h = im.size
    raw = im.tobytes()
    return w, h, [raw[y * w * 3:(y + 1) * w * 3] for y in range(h)]


def _decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unsupported PNG layout"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 0xFF
            elif ftype == 2:
                line[x] = (line[x] + b) & 0xFF
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return width, height, rows


def assert_rendered(png: Path) -> None:
    """Not blank: many colours, and the page has content well below the header."""
    w, h, rows = pixels(png)
    assert (w, h) == (1280, 2000)
    colours = set()
    for y in range(0, h, 4):
        row = rows[y]
        for x in range(0, w * 3, 3 * 4):
            colours.add(row[x:x + 3])
    assert len(colours) > 20, f"{png.name}: only {len(colours)} colours: blank or unstyled"
    # Below the header, in the content column: text, not one flat colour.
    band = {rows[y][x:x + 3] for y in range(300, 900, 2) for x in range(600, w * 3 - 600, 6)}
    assert len(band) > 3, f"{png.name}: the content area is empty"


# --- the pages ----------------------------------------------------------------------------------


def test_home_primitive_and_realization_pages_render(synthetic_site, tmp_path: Path) -> None:
    s = synthetic_site
    pages = {"home": s.html(layout.HOME), "primitive": s.html(s.pages["primitive:block-reduce"]),
             "realization": s.html(s.pages["realization:block-reduce/warp-shuffle"])}
    for name, page in pages.items():
        assert_rendered(screenshot(tmp_path, page, name))
    home = dump_dom(tmp_path, pages["home"])
    assert "epl-flow" in home and "Headline results" in home
    prim = dump_dom(tmp_path, pages["primitive"])
    assert re.search(r'class="[^"]*epl-comparison', prim), "the comparison table is missing"
    assert re.search(r'<img[^>]+class="epl-chart"', prim), "the chart is missing"
    assert "<script>alert" not in prim
    real = dump_dom(tmp_path, pages["realization"])
    assert re.search(r'<img[^>]+class="epl-chart"', real), "the realization's chart is missing"
    assert 'class="epl-details epl-code"' in real and "Launch plan" in real


def test_repository_site_renders(repo_site, tmp_path: Path) -> None:
    s = repo_site
    cat = s.generated.data.catalog
    prim = next((p for p in cat.primitives if cat.realizations_of(p)), next(iter(cat.primitives)))
    pages = {"home": s.html(layout.HOME), "primitive": s.html(s.pages[f"primitive:{prim}"])}
    if cat.realizations:
        pages["realization"] = s.html(s.pages[f"realization:{next(iter(cat.realizations))}"])
    for name, page in pages.items():
        assert_rendered(screenshot(tmp_path, page, name))
    dom = dump_dom(tmp_path, pages["primitive"])
    if cat.realizations_of(prim):
        assert re.search(r'class="[^"]*epl-comparison', dom), "the comparison table is missing"
    if s.generated.data.has_evidence() and s.generated.output.charts:
        assert re.search(r'<img[^>]+class="epl-chart"', dom), "the chart is missing"


def test_png_decoder_matches_pillow(synthetic_site, tmp_path: Path) -> None:
    """The fallback decoder (used where Pillow is absent) reads chromium's PNGs as Pillow does."""
    pytest.importorskip("PIL")
    png = screenshot(tmp_path, synthetic_site.html(layout.HOME), "decoder")
    w, h, rows = _decode_png(png.read_bytes())
    pw, ph, prow = pixels(png)
    assert (w, h) == (pw, ph)
    for y in (0, 500, 1999):
        assert rows[y] == prow[y]


def test_the_error_page_is_styled_from_disk(synthetic_site, tmp_path: Path) -> None:
    """404.html opened from file://: its stylesheets load (MkDocs writes them site-root-relative; the
    hook makes them relative), so the header has the theme's indigo, not the unstyled page's white."""
    png = screenshot(tmp_path, synthetic_site.site / "404.html", "error-page")
    _, _, rows = pixels(png)
    r, g, b = rows[10][640 * 3:640 * 3 + 3]
    assert b > 150 and r < 110 and g < 120, f"the header is ({r}, {g}, {b}): the styles did not load"


#: Run in a page holding every chart inline: each text's box as the browser lays it out (rotated
#: axis titles included) against its own SVG's box; the findings as JSON in <pre id="probe">.
LEGEND_PROBE = r"""
window.addEventListener('load', function () {
  var out = {charts: 0, texts: 0, outside: []};
  Array.prototype.forEach.call(document.querySelectorAll('figure[data-chart] > svg'), function (svg) {
    out.charts += 1;
    var s = svg.getBoundingClientRect();
    Array.prototype.forEach.call(svg.querySelectorAll('text'), function (t) {
      out.texts += 1;
      var r = t.getBoundingClientRect();
      if (r.left < s.left - 0.5 || r.top < s.top - 0.5 || r.right > s.right + 0.5 || r.bottom > s.bottom + 0.5)
        out.outside.push(svg.parentNode.getAttribute('data-chart') + ': ' + t.textContent.slice(0, 60));
    });
  });
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""


def test_every_chart_keeps_its_text_inside_its_figure(repo_site, tmp_path: Path) -> None:
    """Legends, tick labels and axis titles of every chart the repository's site draws lie inside the
    SVG as chromium lays them out, each chart at its own size (as the pages show them, at most 100%)."""
    import json
    from html import unescape

    charts = sorted(p for p in (repo_site.site / "generated").rglob("*.svg"))
    if not charts:
        pytest.skip("the repository site draws no chart")
    figures = "".join(f'<figure data-chart="{p.relative_to(repo_site.site).as_posix()}">'
                      + re.sub(r"<\?xml[^>]*>", "", p.read_text(encoding="utf-8")) + "</figure>" for p in charts)
    page = tmp_path / "charts.html"
    page.write_text(f"<!doctype html><html><body>{figures}<script>{LEGEND_PROBE}</script></body></html>",
                    encoding="utf-8")
    proc = chromium(tmp_path, page.as_uri(), "--dump-dom", "--window-size=1400,900", "--virtual-time-budget=5000")
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    result = json.loads(unescape(found.group(1)))
    assert result["charts"] == len(charts) and result["texts"] > len(charts)
    assert result["outside"] == [], f"{len(result['outside'])} texts outside their chart: {result['outside'][:10]}"
