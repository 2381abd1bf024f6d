"""The codegen basis page: the device building blocks under kernels/include/, what each header is,
which realizations include it, and its source."""

from __future__ import annotations

from collections.abc import Iterator

from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, dash, table
from epldb.site.pages.common import basis_anchor, local_includes
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


def write_basis(site: Site) -> Page:
    """The device building blocks under kernels/include/: what each header is, who includes it."""
    page = Page(layout.BASIS, "Codegen basis", search_sections=())  # its sources are not searched: the intro is
    include = site.cat.root / "kernels" / "include"
    page.para("The reusable device building blocks that realizations are written on and that generated "
              "kernels will include. Folders are scopes of cooperation: <code>thread/</code> (one thread "
              "alone), <code>warp/</code> (32 lanes, shuffles), <code>block/</code> (all threads of a block, "
              "shared memory and barriers); <code>harness/</code> holds the measurement kernels' bodies, one "
              "per contract. A block-level piece builds only on warp- and thread-level ones.")
    headers = sorted(include.rglob("*.cuh")) if include.is_dir() else []
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
    texts: list[tuple[str, str]] = []
    for h in headers:
        rel_name = h.relative_to(include).as_posix()
        text = h.read_text(encoding="utf-8", errors="replace")
        texts.append((rel_name, text))
        first = text.splitlines()[0] if text else ""
        what = first.split("—", 1)[1].strip() if "—" in first else first.lstrip("/ ").strip()
        parts = rel_name.split("/")
        if len(parts) >= 3:
            scope = parts[1]
        else:
            scope = "aggregator" if (h.parent / h.stem).is_dir() or h.stem == parts[0] else "shared"
        rows.append([f'<a href="#{esc(basis_anchor(rel_name))}"><code class="epl-nowrap-plain">{esc(rel_name)}</code></a>', esc(scope), esc(what),
                     ", ".join(site.link_id(page, "realization", rid) for rid in users.get(rel_name, [])) or dash()])
    page.raw(table(["header", "scope", "what it is", "realizations using it"], rows))
    page.heading(2, "Sources")
    for rel_name, text in texts:
        page.heading(3, f"kernels/include/{rel_name}", anchor=basis_anchor(rel_name))
        page.code(text, "cuda", linenums=True)
    return page


def _pages(site: Site) -> Iterator[Page]:
    yield write_basis(site)


KIND = PageKind("basis", _pages, nav_title="Codegen basis", nav=lambda site: layout.BASIS)


__all__ = ["KIND", "write_basis"]
