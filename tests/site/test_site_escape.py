"""The three spellings of record text (epldb.site.escape), through Python-Markdown as MkDocs runs it."""

from __future__ import annotations

import pytest

from epldb.site.escape import html, md_inline, prose, prose_inline

markdown = pytest.importorskip("markdown")

HOSTILE = "<script>alert(1)</script> | pipes | [link](javascript:x) *a* _b_ `c` # {#id} &amp; \\"


def render(md: str) -> str:
    return markdown.markdown(md, extensions=["tables", "attr_list", "toc"])


def test_html_escapes_the_five_characters() -> None:
    assert html("<a href=\"x\" title='y'>&</a>") == "&lt;a href=&quot;x&quot; title=&#x27;y&#x27;&gt;&amp;&lt;/a&gt;"


def test_md_inline_renders_as_the_same_text() -> None:
    out = render("# " + md_inline(HOSTILE))
    assert "<script" not in out and "<a " not in out and "<em>" not in out and "<code>" not in out
    import html as std

    text = std.unescape(out.split(">", 1)[1].rsplit("</h1>", 1)[0])
    assert text == " ".join(HOSTILE.split())


def test_md_inline_in_a_table_cell_keeps_its_pipes() -> None:
    out = render("| a | b |\n|---|---|\n| " + md_inline("x | y") + " | z |\n")
    assert out.count("<td>") == 2


def test_md_inline_is_one_line() -> None:
    assert "\n" not in md_inline("a\n\n# b")


def test_prose_keeps_a_safe_subset() -> None:
    out = prose("Uses `a<b`, **bold** and *em*.\n\n- one\n- two <i>\n\n1. first\n2. second\n\n```\nx < y\n```")
    assert "<code>a&lt;b</code>" in out and "<strong>bold</strong>" in out and "<em>em</em>" in out
    assert "<ul><li>one</li><li>two &lt;i&gt;</li></ul>" in out
    assert "<ol><li>first</li><li>second</li></ol>" in out
    assert "<pre><code>x &lt; y</code></pre>" in out


def test_prose_never_makes_links_or_raw_html() -> None:
    out = prose(HOSTILE + "\n\n<div onclick=x>y</div>")
    assert "<script" not in out and "<a" not in out and "<div" not in out
    assert "[link](javascript:x)" in out


def test_prose_inline_is_one_line_of_inline_html() -> None:
    assert prose_inline("a\n\nb `c`") == "a b <code>c</code>"
