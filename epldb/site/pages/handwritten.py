"""Pages written by hand, in the nav beside the generated ones: the contributing guide
(site_src/contributing.md) and the architecture (docs/ARCHITECTURE.md, copied as it is, when the
repository has one)."""

from __future__ import annotations

from collections.abc import Iterator

from epldb.site import layout
from epldb.site.html import Page
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


def _copy_architecture(site: Site) -> Iterator[Page]:
    architecture = site.cat.root / layout.ARCHITECTURE_SOURCE
    if architecture.is_file():
        site.out.files[layout.ARCHITECTURE] = architecture.read_bytes()
    yield from ()


def _architecture_nav(site: Site) -> str | None:
    return layout.ARCHITECTURE if (site.cat.root / layout.ARCHITECTURE_SOURCE).is_file() else None


CONTRIBUTING = PageKind("contributing", lambda site: (), nav_title="Contributing", nav=lambda site: layout.CONTRIBUTING)
ARCHITECTURE = PageKind("architecture", _copy_architecture, nav_title="Architecture", nav=_architecture_nav)


__all__ = ["ARCHITECTURE", "CONTRIBUTING"]
