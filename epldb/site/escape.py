"""Record text made safe for the page: nothing a record says can become markup.

Records are written by contributors; a title such as ``<script>…</script>`` or ``[x](javascript:…)``
must show as those characters, never run or link. Three spellings cover every place text lands:

- ``html(s)``: inside raw HTML (tables, figures, attributes): the five HTML-special characters.
- ``md_inline(s)``: inside Markdown (headings, list items): every character Markdown or its table
  and attribute extensions could read as syntax becomes a numeric character reference (a backslash
  would not do: Python-Markdown escapes only some characters and leaves the backslash elsewhere).
- ``prose(s)``: a record's prose fields, as HTML: escaped first, then a small safe subset of
  Markdown put back (paragraphs, ``-``/``1.`` lists, `code`, **bold**, *emphasis*, fenced code).
  Links and raw HTML are never produced.
"""

from __future__ import annotations

import html as _html
import re

# Characters Markdown (or its table, attribute-list and emphasis extensions) could read as syntax, and
# the two that start raw HTML or entities. Each is written as a numeric character reference, which
# Markdown passes through as the character itself and never reads as markup.
_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>&~^=:\"'")


def html(text: object) -> str:
    """Text for raw HTML: element content or a quoted attribute value."""
    return _html.escape(str(text), quote=True)


def md_inline(text: object) -> str:
    """Text for one line of Markdown (a heading, a list item, a link label)."""
    flat = " ".join(str(text).split())  # one line: a newline could start a new block
    return "".join(f"&#{ord(ch)};" if ch in _MD_SPECIAL else ch for ch in flat)


_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_UL_ITEM = re.compile(r"^\s{0,3}[-*]\s+(.*)$")
_OL_ITEM = re.compile(r"^\s{0,3}\d+[.)]\s+(.*)$")


def _inline(text: str) -> str:
    """Escape, then restore `code`, **bold** and *emphasis* on the escaped text."""
    pieces: list[str] = []
    last = 0
    for m in _CODE.finditer(text):
        pieces.append(_emphasis(html(text[last:m.start()])))
        pieces.append(f"<code>{html(m.group(1))}</code>")
        last = m.end()
    pieces.append(_emphasis(html(text[last:])))
    return "".join(pieces)


def _emphasis(escaped: str) -> str:
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    return _EM.sub(r"<em>\1</em>", escaped)


def prose(text: object) -> str:
    """A prose field as safe HTML (block-level elements, no surrounding wrapper)."""
    lines = str(text).replace("\r\n", "\n").split("\n")
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.lstrip().startswith("```"):
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end)
            blocks.append(f"<pre><code>{html(chr(10).join(body))}</code></pre>")
            continue
        for pattern, tag in ((_UL_ITEM, "ul"), (_OL_ITEM, "ol")):
            if pattern.match(line):
                items: list[str] = []
                while i < len(lines) and lines[i].strip():
                    m = pattern.match(lines[i])
                    if m:
                        items.append(m.group(1).strip())
                    elif items:  # a continuation line of the previous item
                        items[-1] += " " + lines[i].strip()
                    i += 1
                blocks.append(f"<{tag}>" + "".join(f"<li>{_inline(it)}</li>" for it in items) + f"</{tag}>")
                break
        else:
            para: list[str] = []
            while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith("```") \
                    and not _UL_ITEM.match(lines[i]) and not _OL_ITEM.match(lines[i]):
                para.append(lines[i].strip())
                i += 1
            blocks.append(f"<p>{_inline(' '.join(para))}</p>")
    return "".join(blocks)


def prose_inline(text: object) -> str:
    """A short prose field (one sentence, a table cell) as safe inline HTML."""
    return _inline(" ".join(str(text).split()))
