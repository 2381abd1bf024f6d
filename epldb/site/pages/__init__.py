"""The generated pages, as a registry of page kinds: one module a kind, each ending in a ``KIND``
(a ``PageKind``: its pages, the ``record_pages`` keys it answers for, its nav section), all listed
in ``KINDS`` below. ``generate_pages``, ``nav`` and ``record_pages`` only walk that tuple; what kinds
share lives in ``site`` (the generation's ``Site`` and ``Output``), ``common``, ``comparison`` and
``rules`` (the decision table of a primitive or operator, and the cells the selection page shares).
Nothing here touches MkDocs: the output is plain Markdown with raw HTML blocks, fenced code and a
nav YAML, so the rendering engine can change.

How to add a page kind: write ``epldb/site/pages/<kind>.py`` with its ``write_*`` functions (each
returns a ``Page``; paths come from ``epldb/site/layout.py``) and a ``KIND = PageKind(...)``, then
put ``<kind>.KIND`` into ``KINDS`` where its nav section should appear. Kinds import ``site``,
``kind``, ``common``, ``comparison`` and ``rules``, never this package, so the graph stays acyclic.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from epldb.site import layout
from epldb.site.charts import write_chart
from epldb.site.data import SiteData
from epldb.site.pages import (basis, devices, evidence, experiments, features, handwritten, home, operators,
                              primitives, realizations, selection)
from epldb.site.pages.kind import NavEntry, PageKind
from epldb.site.pages.site import Output, Site

#: Every page kind, in nav order (kinds naming one nav section share it, in this order).
KINDS: tuple[PageKind, ...] = (
    home.KIND,
    features.KIND,
    primitives.KIND,
    realizations.KIND,
    operators.KIND,
    selection.KIND,
    basis.KIND,
    experiments.KIND,
    evidence.KIND,
    devices.KIND,
    handwritten.CONTRIBUTING,
    handwritten.ARCHITECTURE,
)


def nav(site: Site, kinds: tuple[PageKind, ...] = KINDS) -> list[Any]:
    """The nav, as MkDocs reads it: a section per ``nav_title``, in the order kinds first name it."""
    sections: dict[str, NavEntry] = {}
    for kind in kinds:
        entry = kind.nav(site) if kind.nav is not None and kind.nav_title is not None else None
        if entry is None or kind.nav_title is None:
            continue
        prior = sections.get(kind.nav_title)
        if prior is None:
            sections[kind.nav_title] = entry
        elif isinstance(prior, list) and isinstance(entry, list):
            sections[kind.nav_title] = [*prior, *entry]
        else:
            raise ValueError(f"nav section {kind.nav_title!r}: kind {kind.name!r} adds to a single page")
    return [{title: entry} for title, entry in sections.items()]


def nav_paths(entries: Any) -> list[str]:
    """Every page path a nav (as ``nav`` returns it) names, in order."""
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, dict):
        return [p for entry in entries.values() for p in nav_paths(entry)]
    if isinstance(entries, list):
        return [p for entry in entries for p in nav_paths(entry)]
    return []


def not_in_nav(out: Output, entries: list[Any]) -> str:
    """MkDocs' ``not_in_nav`` for the generated pages the nav leaves out (realizations, experiments,
    the basis rooms): they are built and linked from their parents' pages, and naming them here
    keeps ``--strict`` (which treats an omitted page as a warning) passing. One anchored path a line,
    gitignore style; paths are slugs, so nothing in them is a pattern character."""
    listed = set(nav_paths(entries))
    return "".join(f"/{path}\n" for path in sorted(out.pages) if path not in listed)


def hooks_path(root: Path) -> str:
    """The site's MkDocs hooks (``epldb/site/mkdocs_hooks.py``) as mkdocs.yml under ``root`` names
    them: relative to the root when this package is the root's own, else absolute (a copy of the
    catalog built by an installed epldb)."""
    hooks = Path(__file__).resolve().parent.parent / "mkdocs_hooks.py"
    try:
        return hooks.relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return hooks.as_posix()


def generate_pages(data: SiteData, docs_dir: Path, progress: Callable[[str], None] | None = None,
                   kinds: tuple[PageKind, ...] = KINDS) -> Output:
    """Write every generated page, chart and file under ``docs_dir/generated`` (replacing it)."""
    site = Site(data, progress)
    out = site.out
    for kind in kinds:
        for page in kind.pages(site):
            out.add(page)
    entries = nav(site, kinds)
    config = {"nav": entries, "not_in_nav": not_in_nav(out, entries), "hooks": [hooks_path(data.catalog.root)]}
    out.files[layout.NAV_FILE] = yaml.safe_dump(config, sort_keys=False, allow_unicode=True).encode("utf-8")

    target = docs_dir / layout.GENERATED
    if target.exists():
        shutil.rmtree(target)
    for path, page in out.pages.items():
        _write(docs_dir / path, page.render().encode("utf-8"))
    for path, blob in out.files.items():
        _write(docs_dir / path, blob)
    for chart, svg, csv_path in site.pending_charts:
        write_chart(chart, docs_dir / svg, docs_dir / csv_path)
    return out


def _write(path: Path, blob: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(blob)


def record_pages(data: SiteData, kinds: tuple[PageKind, ...] = KINDS) -> dict[str, str]:
    """Record id (prefixed by kind) → its page path; what the tests check against the built site."""
    site = Site(data)
    out: dict[str, str] = {}
    for kind in kinds:
        out.update(kind.paths(site))
    return out


__all__ = ["KINDS", "Output", "PageKind", "Site", "generate_pages", "hooks_path", "nav", "nav_paths", "not_in_nav", "record_pages"]
