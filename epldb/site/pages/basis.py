"""The codegen basis pages: the device building blocks under kernels/include/, what each header is
and which realizations include it (one index page), and their sources, one page per room
(``epl/block/``, ``epl/warp/``, ...) so no page carries the whole basis: all of it on one page was
1.8 MB of highlighted HTML that took seconds to render. Each header is also copied raw, once."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import Path

from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, dash, source_block, table
from epldb.site.pages.common import basis_anchor, local_includes
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


def _headers(site: Site) -> list[tuple[str, Path]]:
    include = site.cat.root / "kernels" / "include"
    found = sorted(include.rglob("*.cuh")) if include.is_dir() else []
    return [(h.relative_to(include).as_posix(), h) for h in found]


def write_basis(site: Site) -> Page:
    """The device building blocks under kernels/include/: what each header is, who includes it."""
    page = Page(layout.BASIS, "Codegen basis", search_sections=())  # its sources are not searched: the intro is
    include = site.cat.root / "kernels" / "include"
    page.para("The reusable device building blocks that realizations are written on and that generated "
              "kernels will include. Folders are scopes of cooperation: <code>thread/</code> (one thread "
              "alone), <code>warp/</code> (32 lanes, shuffles), <code>block/</code> (all threads of a block, "
              "shared memory and barriers); <code>harness/</code> holds the measurement kernels' bodies, one "
              "per contract. A block-level piece builds only on warp- and thread-level ones.")
    headers = _headers(site)
    if not headers:
        page.para("No headers under <code>kernels/include/</code> yet.", "epl-empty")
        return page
    users: dict[str, list[str]] = {}
    for r in site.cat.realizations.values():
        try:
            source = (site.cat.root / r.kernel_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for rel_name, _ in local_includes(include, source, (site.cat.root / r.kernel_path).parent):
            users.setdefault(rel_name, []).append(r.id)
    rows = []
    for rel_name, h in headers:
        text = h.read_text(encoding="utf-8", errors="replace")
        first = text.splitlines()[0] if text else ""
        what = first.split("—", 1)[1].strip() if "—" in first else first.lstrip("/ ").strip()
        parts = rel_name.split("/")
        if len(parts) >= 3:
            scope = parts[1]
        else:
            scope = "aggregator" if (h.parent / h.stem).is_dir() or h.stem == parts[0] else "shared"
        target = f"{page.href(layout.basis_room(rel_name))}#{basis_anchor(rel_name)}"
        rows.append([f'<a href="{esc(target)}"><code class="epl-nowrap-plain">{esc(rel_name)}</code></a>', esc(scope),
                     esc(what), ", ".join(site.link_id(page, "realization", rid) for rid in users.get(rel_name, []))
                     or dash()])
    page.raw(table(["header", "scope", "what it is", "realizations using it"], rows))
    rooms = sorted({layout.basis_room(n) for n, _ in headers} - {layout.BASIS})
    page.heading(2, "Sources")
    page.para("One page per room: " + ", ".join(
        page.a(room, posixpath.basename(room)[: -len(".md")]) for room in rooms) + ". The aggregators follow.")
    _sources(site, page, [(n, h) for n, h in headers if layout.basis_room(n) == layout.BASIS])
    return page


def write_room(site: Site, room: str, headers: list[tuple[str, Path]]) -> Page:
    folder = posixpath.dirname(headers[0][0])
    page = Page(room, f"kernels/include/{folder}/",
                crumbs=[(layout.BASIS, "Codegen basis"), (None, f"{folder}/")])
    page.para(f"The sources of the {len(headers)} headers of <code>kernels/include/{esc(folder)}/</code>; "
              f"{page.a(layout.BASIS, 'the basis index')} says what each is and which realizations include it. "
              "Here: " + ", ".join(f'<a href="#{esc(basis_anchor(n))}"><code>{esc(posixpath.basename(n))}</code></a>'
                                   for n, _ in headers) + ".")
    _sources(site, page, headers)
    return page


def _sources(site: Site, page: Page, headers: list[tuple[str, Path]]) -> None:
    """Each header's source under a heading its links point to, with its raw copy (written once)."""
    for rel_name, h in headers:
        repo_path = f"kernels/include/{rel_name}"
        raw = layout.source_copy(repo_path)
        site.out.files[raw] = h.read_bytes()
        page.heading(3, repo_path, anchor=basis_anchor(rel_name))
        text = h.read_text(encoding="utf-8", errors="replace")
        page.raw(source_block(f'{text.count(chr(10))} lines · <a href="{esc(layout.rel(page.path, raw))}">raw file</a>',
                              text, opened=True))


def _pages(site: Site) -> Iterator[Page]:
    yield write_basis(site)
    rooms: dict[str, list[tuple[str, Path]]] = {}
    for rel_name, h in _headers(site):
        room = layout.basis_room(rel_name)
        if room != layout.BASIS:
            rooms.setdefault(room, []).append((rel_name, h))
    for room, headers in rooms.items():
        yield write_room(site, room, headers)


KIND = PageKind("basis", _pages, nav_title="Codegen basis", nav=lambda site: layout.BASIS)


__all__ = ["KIND", "write_basis", "write_room"]
