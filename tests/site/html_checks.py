"""Checks on a built site's files (links, asset URLs, visible text) and on generated pages' Markdown
(sections, table rows, cell text). Standard library only."""

from __future__ import annotations

import html as std_html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: (tag, attribute) pairs that load something when the page renders.
ASSET_ATTRS = {("link", "href"), ("script", "src"), ("img", "src"), ("source", "src"), ("source", "srcset"),
               ("iframe", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data"),
               ("image", "href"), ("use", "href"), ("track", "src"), ("input", "src")}
_NETWORK = re.compile(r"^\s*(https?:)?//", re.I)
_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""", re.I)


@dataclass
class Ref:
    tag: str
    attr: str
    value: str


@dataclass
class Parsed:
    refs: list[Ref] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    styles: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = Parsed()
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src", "srcset", "data", "xlink:href", "action", "poster"):
                self.out.refs.append(Ref(tag, name, value))
            if name == "id":
                self.out.ids.add(value)
            if name == "style":
                self.out.styles.append(value)
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.out.styles.append(data)
        else:
            self.out.text.append(data)


def md_section(md: str, heading: str) -> str | None:
    """A generated page's section under ``## heading`` (up to the next heading of its level), None
    when the page has none."""
    head = f"## {heading}\n"
    if head not in md:
        return None
    return md.split(head, 1)[1].split("\n## ", 1)[0]


def table_rows(block: str) -> list[list[str]]:
    """The cells (their inner HTML) of each body row of the first table in a block of generated HTML."""
    body = block.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body)]


def each_table_rows(block: str) -> list[list[list[str]]]:
    """table_rows of every table in a block, in order (a section with a table per device)."""
    return [table_rows("<table" + part) for part in block.split("<table")[1:]]


def cell_text(cell: str) -> str:
    """A cell's text as a reader sees it: tags dropped, entities resolved."""
    return std_html.unescape(re.sub(r"<[^>]+>", "", cell))


def parse(path: Path) -> Parsed:
    p = _Parser()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p.out


def broken_links(site: Path) -> list[str]:
    """Every relative href/src in every HTML file that does not resolve to a file of the site, and
    every root-absolute one (it breaks under file://). 404.html is skipped: a web server serves it at
    any depth, so the theme writes it with root-absolute URLs on purpose."""
    bad: list[str] = []
    for page in sorted(site.rglob("*.html")):
        if page.relative_to(site).as_posix() == "404.html":
            continue
        for ref in parse(page).refs:
            value = ref.value.strip()
            if ref.attr == "srcset":
                value = value.split()[0] if value else value
            if not value or value.startswith("#"):
                continue
            scheme = urlsplit(value).scheme.lower()
            if scheme in ("http", "https", "mailto", "data") or value.startswith("//"):
                continue
            if scheme:  # javascript:, file:, anything else has no business in the site
                bad.append(f"{page.relative_to(site)}: <{ref.tag} {ref.attr}={value!r}> has scheme {scheme!r}")
                continue
            path = unquote(urlsplit(value).path)
            if path.startswith("/"):
                bad.append(f"{page.relative_to(site)}: <{ref.tag} {ref.attr}={value!r}> is root-absolute")
                continue
            target = (page.parent / path).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                bad.append(f"{page.relative_to(site)}: <{ref.tag} {ref.attr}={value!r}> does not resolve")
    return bad


def network_assets(site: Path) -> list[str]:
    """Anything the site would fetch from the network when rendered: HTML asset attributes, inline
    styles, CSS url()/@import, and web-font hosts anywhere in the site's text files."""
    found: list[str] = []
    for page in sorted(site.rglob("*.html")):
        parsed = parse(page)
        for ref in parsed.refs:
            if (ref.tag, ref.attr) in ASSET_ATTRS and _NETWORK.match(ref.value):
                found.append(f"{page.relative_to(site)}: <{ref.tag} {ref.attr}={ref.value!r}>")
        for style in parsed.styles:
            for m in _CSS_URL.finditer(style):
                url = m.group(1) or m.group(2)
                if _NETWORK.match(url):
                    found.append(f"{page.relative_to(site)}: style url {url!r}")
    for css in sorted(site.rglob("*.css")):
        for m in _CSS_URL.finditer(css.read_text(encoding="utf-8", errors="replace")):
            url = m.group(1) or m.group(2)
            if _NETWORK.match(url):
                found.append(f"{css.relative_to(site)}: url {url!r}")
    # Pages, styles and charts must not name a CDN or font host at all. (The theme's JavaScript bundle
    # names unpkg.com for two lazy loads: a ResizeObserver polyfill every current browser makes
    # unnecessary, and Mermaid, fetched only for `.mermaid` blocks; `mermaid_blocks` checks there are none.)
    for f in sorted(site.rglob("*")):
        if f.suffix in (".html", ".css", ".svg") and f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace")
            for host in ("fonts.googleapis.com", "fonts.gstatic.com", "cdn.jsdelivr.net", "unpkg.com",
                         "cdnjs.cloudflare.com"):
                if host in text:
                    found.append(f"{f.relative_to(site)}: mentions {host}")
    return found


def mermaid_blocks(site: Path) -> list[str]:
    """Pages with a Mermaid block, which would make the theme fetch Mermaid from a CDN."""
    return [str(p.relative_to(site)) for p in sorted(site.rglob("*.html"))
            if re.search(r"""class=["'][^"']*\bmermaid\b""", p.read_text(encoding="utf-8"))]


def visible_text(path: Path) -> str:
    return " ".join(" ".join(parse(path).text).split())
