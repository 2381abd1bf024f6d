"""MkDocs hooks of the catalog site (named in the generated ``_build/nav.yml`` that mkdocs.yml
inherits, so a hand-run ``mkdocs build`` uses them too). Standard library only: MkDocs loads this
file by path, outside the package.

Every page: the theme indents its markup deeply (a sixth of a page is indentation), so each run of
whitespace that starts a line is cut to the newline, outside ``<pre>`` and ``<textarea>`` where
whitespace is content. Browsers render a run of whitespace between words or tags as one space
either way, and the newline keeps inline scripts' statements apart.

MkDocs renders the error page with site-root-relative links (``/assets/...``, ``/generated/...``,
and the theme's ``"base": "/"``) because a server may show it at any depth. The site is read from
``file://`` as well, where ``/`` is the disk's root and every such link breaks; ``404.html`` sits at
the site's root, so the same links written relative to it work from disk. A server that shows the
page at a deeper URL loses its styles, as every ``file://`` reader lost all of its links before.

After the build: the theme ships its scripts' source maps (read only by a browser's developer
tools) and the search's word splitters and stemmers for other languages (Thai, Japanese, ...,
fetched only when the search's language is one of them). An English-only site reads neither; they
were a tenth of its bytes.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

ERROR_PAGE = "404.html"

# A quoted attribute value or theme-config string that starts at the site root ("/x", not "//host").
_ROOTED_ATTR = re.compile(r'(\s(?:href|src)=")/(?!/)')
_ROOTED_CONFIG = re.compile(r'("(?:base|search)":\s*")/(?!/)')


# <pre> and <textarea> keep their whitespace; the group keeps them in re.split's output.
_VERBATIM = re.compile(r"(<(?:pre|textarea)\b.*?</(?:pre|textarea)>)", re.S | re.I)
_INDENT = re.compile(r"\n[ \t\r\n]+")


def squeeze_indentation(html: str) -> str:
    """``html`` with each newline's following whitespace dropped, except inside pre and textarea."""
    pieces = _VERBATIM.split(html)
    return "".join(p if i % 2 else _INDENT.sub("\n", p) for i, p in enumerate(pieces))


def relative_to_root(html: str) -> str:
    """The error page's rooted links made relative to the site's root, where the page sits."""
    html = _ROOTED_ATTR.sub(r"\1", html)
    html = html.replace(' href=""', ' href="index.html"')  # "/" itself: the home page
    html = _ROOTED_CONFIG.sub(r"\1", html)
    return html.replace('"base": ""', '"base": "."')


def on_post_page(output: str, page: Any, config: Any) -> str:
    """MkDocs event: a page's rendered HTML, before it is written."""
    return squeeze_indentation(output)


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    """MkDocs event: the rendered output of a theme template such as ``404.html``."""
    if template_name != ERROR_PAGE:
        return output_content
    return squeeze_indentation(relative_to_root(output_content))


def drop_unread_assets(site_dir: Path, languages: list[str]) -> list[Path]:
    """Delete the source maps and, for an English-only search, the other languages' search files;
    returns what was deleted."""
    scripts = site_dir / "assets" / "javascripts"
    gone = sorted(scripts.rglob("*.map")) if scripts.is_dir() else []
    for path in gone:
        path.unlink()
    lunr = scripts / "lunr"
    if languages == ["en"] and lunr.is_dir():
        gone.append(lunr)
        shutil.rmtree(lunr)
    return gone


def on_post_build(config: Any) -> None:
    """MkDocs event: the site is written."""
    search = config["plugins"].get("search")
    theme_language = config["theme"]["language"] if "language" in config["theme"] else "en"
    languages = list((search.config.get("lang") if search is not None else None) or [theme_language])
    drop_unread_assets(Path(config["site_dir"]), languages)


__all__ = ["ERROR_PAGE", "drop_unread_assets", "on_post_build", "on_post_page", "on_post_template",
           "relative_to_root", "squeeze_indentation"]
