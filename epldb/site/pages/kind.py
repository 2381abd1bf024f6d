"""The registry's entry: a ``PageKind`` says what pages one kind writes, which ``record_pages`` keys
they answer for and where they sit in the nav. ``epldb.site.pages.KINDS`` lists them all."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

from epldb.site.html import Page
from epldb.site.pages.site import Site

#: What a kind puts under its nav section: a page path, or a list of nav items (paths, or
#: ``{title: entry}`` with the title HTML-escaped: themes print nav titles unescaped).
NavEntry = Union[str, list[Any]]


def no_paths(site: Site) -> dict[str, str]:
    """For a kind whose pages stand for no record (an index, a hand-written page)."""
    return {}


@dataclass(frozen=True)
class PageKind:
    """One kind of generated page.

    ``pages`` builds its pages (and may add files to ``site.out.files``: charts, CSV copies,
    snippets); ``paths`` maps ``"<kind>:<id>"`` to the page of each record it writes (what
    ``record_pages`` answers); ``nav`` gives the entry under the top-level nav section
    ``nav_title`` (None: not in the nav this time). Kinds sharing a section add lists to it, in
    the registry's order.
    """

    name: str
    pages: Callable[[Site], Iterable[Page]]
    paths: Callable[[Site], dict[str, str]] = no_paths
    nav_title: str | None = None
    nav: Callable[[Site], NavEntry | None] | None = None


__all__ = ["NavEntry", "PageKind", "no_paths"]
