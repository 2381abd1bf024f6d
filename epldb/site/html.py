"""Small HTML and Markdown builders for generated pages. Every argument named ``text`` is record
text and is escaped here; arguments named ``*_html`` are HTML the caller already made safe."""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterable, Sequence

from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.escape import md_inline


class Page:
    """One generated Markdown page: front matter, escaped headings, raw HTML blocks, code fences."""

    def __init__(self, path: str, title: str, *, crumbs: Sequence[tuple[str | None, str]] = (),
                 hide_toc: bool = False, contents: bool = False, search_sections: Collection[str] | None = None,
                 search_boost: float | None = None, search_names: Sequence[str] = ()) -> None:
        self.path = path  # relative to site_src
        self.title = title
        self.hide_toc = hide_toc
        # A page outside the nav gets no table of contents from the theme (toc.integrate puts it in the
        # page's nav entry); ``contents`` writes one under the title, from the page's h2 headings.
        self.contents: list[tuple[str, str]] | None = [] if contents else None
        # What the search index holds of the page: its title and opening, and the level-2 sections named
        # here (every section where None). The rest (logs, sources, evidence) would drown the "why" of
        # each record in numbers and identifiers, and make the index megabytes for the browser to parse.
        self.search_sections = None if search_sections is None else frozenset(search_sections)
        self.search_boost = search_boost  # how much more a match on this page weighs (operators, primitives)
        # Names the page is found by though its title may not spell them (the id "rmsnorm" of "RMS
        # normalization"): Material's search indexes front-matter tags as its heaviest field, and shows
        # them only with its tags plugin, which the site does not use. Written without hyphens: the
        # search splits words at them, so the tag "log-softmax" would also be the tag "softmax" and
        # put the log-softmax page above the softmax page for "softmax".
        self.search_names = tuple("".join(n.replace("-", " ").split()) for n in search_names)
        self._indexed = True  # whether the section being written is indexed (set by each heading)
        self.parts: list[str] = []
        if crumbs:
            items = [self.a(to, text) if to else f"<span>{esc(text)}</span>" for to, text in crumbs]
            self.raw('<nav class="epl-crumbs" aria-label="breadcrumbs">' + " <span>›</span> ".join(items) + "</nav>")
        self.heading(1, title)
        self._after_title = len(self.parts)

    # --- links -------------------------------------------------------------------------------

    def href(self, to_page: str) -> str:
        return layout.href(self.path, to_page)

    def a(self, to_page: str, text: str, *, cls: str | None = None) -> str:
        c = f' class="{esc(cls)}"' if cls else ""
        return f'<a href="{esc(self.href(to_page))}"{c}>{esc(text)}</a>'

    # --- content -----------------------------------------------------------------------------

    def heading(self, level: int, text: str, anchor: str | None = None) -> None:
        if level == 2 and self.contents is not None:
            anchor = anchor or layout.slug(text)
            self.contents.append((anchor, text))
        if level <= 2:  # a subsection is indexed where its section is
            self._indexed = level == 1 or self.search_sections is None or text in self.search_sections
        attrs = ([f"#{anchor}"] if anchor else []) + ([] if self._indexed else ['data-search-exclude=""'])
        attr = f" {{{' '.join(attrs)}}}" if attrs else ""
        self.parts.append(f"{'#' * level} {md_inline(text)}{attr}\n")

    def raw(self, html_block: str) -> None:
        """A raw HTML block; MkDocs passes it through untouched (so it must be safe already)."""
        block = html_block.strip()
        if not block.startswith("<div") and not block.startswith("<nav") and not block.startswith("<details"):
            block = f"<div>{block}</div>"
        self.parts.append(block + "\n")

    def para(self, inner_html: str, cls: str | None = None) -> None:
        c = f' class="{esc(cls)}"' if cls else ""
        self.raw(f"<div{c}><p>{inner_html}</p></div>")

    def code(self, source: str, lang: str, *, title: str | None = None, linenums: bool = False,
             indent: str = "") -> None:
        """A fenced code block, highlighted by pymdownx.highlight (Pygments) at build time."""
        longest = max((len(run) for run in _backtick_runs(source)), default=0)
        fence = "`" * max(3, longest + 1)
        opts = []
        if title:
            opts.append('title="' + title.replace('"', "'").replace("\n", " ") + '"')
        if linenums:
            opts.append('linenums="1"')
        head = f"{fence}{lang}" + (" " + " ".join(opts) if opts else "")
        body = source if source.endswith("\n") else source + "\n"
        text = f"{head}\n{body}{fence}\n"
        if indent:
            text = "".join(indent + line if line.strip() else line for line in text.splitlines(True))
        self.parts.append(text)

    def collapsible_code(self, summary: str, source: str, lang: str) -> None:
        """Source in a closed ``???`` block (pymdownx.details: an HTML <details>, no script)."""
        safe = summary.replace('"', "'").replace("\n", " ")
        self.parts.append(f'??? abstract "{esc(safe)}"\n')
        self.code(source, lang, linenums=True, indent="    ")

    def render(self) -> str:
        front = "---\ntitle: " + json.dumps(esc(self.title), ensure_ascii=False) + "\n"
        if self.hide_toc:
            front += "hide:\n  - toc\n"
        if self.search_boost is not None:
            front += f"search:\n  boost: {self.search_boost:g}\n"
        if self.search_names:
            front += "tags:\n" + "".join(f"  - {json.dumps(esc(n), ensure_ascii=False)}\n" for n in self.search_names)
        front += "---\n\n"
        parts = list(self.parts)
        if self.contents:
            links = " · ".join(f'<a href="#{esc(anchor)}">{esc(text)}</a>' for anchor, text in self.contents)
            parts.insert(self._after_title, f'<nav class="epl-contents" aria-label="contents">{links}</nav>\n')
        return front + "\n".join(parts)


def _backtick_runs(text: str) -> Iterable[str]:
    run = ""
    for ch in text:
        if ch == "`":
            run += "`"
        elif run:
            yield run
            run = ""
    if run:
        yield run


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "epl-table",
          numeric: Iterable[int] = (), caption_html: str | None = None) -> str:
    """An HTML table. ``header`` is plain text (escaped); cells are safe HTML already."""
    num = set(numeric)
    right = ' class="epl-num"'
    head = "".join(f"<th{right if i in num else ''}>{esc(h)}</th>" for i, h in enumerate(header))
    body = []
    for row in rows:
        cells = "".join(f"<td{right if i in num else ''}>{c}</td>" for i, c in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    cap = f"<caption>{caption_html}</caption>" if caption_html else ""
    # The table itself has no class: Material styles only `table:not([class])`; ours hang on the wrapper.
    # Out of the search index: a table's cells are numbers and ids, the "why" is in the prose around it
    # (on the table itself: Material's indexer ends an exclusion at the first closing tag of its name).
    return (f'<div class="{esc(cls)} md-typeset__scrollwrap"><div class="md-typeset__table">'
            f'<table data-search-exclude="">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            f"</div></div>")


def source_block(summary_html: str, text: str, *, anchor: str | None = None, opened: bool = False) -> str:
    """Source text as plain escaped ``<pre>`` in a closed ``<details>``. Not highlighted: Pygments'
    spans and line-number tables made a kernel's source five times its size on every page that
    showed it; the raw file is linked beside it for line numbers and a text editor."""
    ident = f' id="{esc(anchor)}"' if anchor else ""
    state = " open" if opened else ""
    return (f'<details class="epl-details epl-code"{ident}{state}><summary>{summary_html}</summary>'
            f'<pre><code>{esc(text)}</code></pre></details>')


def human_bytes(n: object) -> str:
    """A byte count for people: 150,994,944 → '144 MiB'; text that is not a count as it is."""
    try:
        value = float(str(n))
    except ValueError:
        return str(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" or value >= 100 else f"{value:.1f} {unit}"
        value /= 1024
    return str(n)


def size_field(key: str, value: str) -> str:
    """An environment field's value, a ``*_bytes`` count written for people with the exact count
    after it (``140 GiB (150113804288 B)``); any other field as it is."""
    if key.endswith("_bytes") and value.isdigit():
        return f"{human_bytes(value)} ({value} B)"
    return value


def badge(text: str, kind: str | None = None) -> str:
    k = layout.slug(kind or text)
    return f'<span class="epl-badge epl-badge--{esc(k)}">{esc(text)}</span>'


def dash() -> str:
    return '<span class="epl-none">—</span>'


def is_num(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


def gbps(x: object) -> str:
    return f"{x:,.0f}" if is_num(x) else dash()


def pct(frac: object) -> str:
    return f"{100 * frac:.0f}%" if is_num(frac) else dash()


def sci(x: object) -> str:
    if not is_num(x):
        return dash()
    return "0" if x == 0 else f"{x:.1e}"


def ms(x: object) -> str:
    if not is_num(x):
        return dash()
    return f"{x:.4f}" if x < 1 else f"{x:.3f}"


def nbytes(n: int) -> str:
    return f"{n} B" if n < 10240 else f"{n / 1024:.0f} KiB"


def check(ok: bool | None) -> str:
    if ok is None:
        return badge("not checked", "unknown")
    return badge("pass", "pass") if ok else badge("fail", "fail")
