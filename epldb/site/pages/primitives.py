"""Primitive pages: the index of execution primitives by family, a page per family, and a page per
primitive comparing its realizations and saying which one the evidence picks when. The Primitives
nav section holds the index and the family pages; the pages below them are reached from those."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from epldb.records import Primitive
from epldb.site import layout
from epldb.site import views as V
from epldb.site.escape import html as esc
from epldb.site.escape import prose, prose_inline
from epldb.site.html import Page, badge, dash, gbps, pct, table
from epldb.site.pages.closing import close_record_page
from epldb.site.pages.common import facts, first_sentence, record_paths
from epldb.site.pages.comparison import realizations_compared
from epldb.site.pages.kind import PageKind
from epldb.site.pages.leaderboard import leaderboard
from epldb.site.pages.rules import which_realization_when
from epldb.site.pages.site import Site
from epldb.site.uses import used_inside

#: The sections of a primitive page the site search indexes, beside its title and summary.
SEARCHED = ("Realizations compared", "Which realization when", "Costs traded", "Notes")
#: A primitive's name finds its page before its realizations' (operators weigh more: pages/operators.py).
SEARCH_BOOST = 5.0


def write_primitives_index(site: Site) -> Page:
    page = Page(layout.PRIMITIVES_INDEX, "Execution primitives")
    page.para("Execution primitives grouped in five families. Each primitive is realized by a family of "
              "CUDA realizations, compared on its page by static resources and measured bandwidth.")
    for fam in site.families():
        prims = [p for p in site.cat.primitives.values() if p.family == fam]
        page.heading(2, site.family_title(fam))
        if prims:
            page.raw(_primitive_rows(site, page, prims))
        page.raw(f"<div><p>{page.a(layout.family(fam), 'Family page: ' + site.family_title(fam))}</p></div>")
    return page


def _primitive_rows(site: Site, page: Page, prims: list[Primitive]) -> str:
    rows = []
    for p in prims:
        rs = site.cat.realizations_of(p.id)
        verified = sum(r.status == "verified" for r in rs)
        h = V.headline(site.ev, p.id, site.order(p.id)) if site.ev is not None else None
        best = (f"{site.link(page, 'realization', str(h.best['subject']))} {gbps(h.best['gbps'])} GB/s "
                f"<small>{pct(h.best['frac_ceiling'])}</small>") if h else dash()
        inside = len(used_inside(site.cat, p.id))
        rows.append([site.link(page, "primitive", p.id), esc(p.scope),
                     f"{len(rs)} <small>({verified} verified)</small>" if rs else dash(),
                     str(inside) if inside else dash(), best, prose_inline(first_sentence(p.summary))])
    return table(["primitive", "scope", "realizations", "used inside", "best measured", "summary"], rows)


def write_family(site: Site, fam: str) -> Page:
    title = site.family_title(fam)
    page = Page(layout.family(fam), f"{title} family",
                crumbs=[(layout.PRIMITIVES_INDEX, "Primitives"), (None, title)])
    prims = [p for p in site.cat.primitives.values() if p.family == fam]
    if prims:
        page.raw(_primitive_rows(site, page, prims))
        feats = sorted({f for p in prims for f in p.features})
        page.heading(2, "Features exploited")
        page.raw("<div><p>" + ", ".join(site.link(page, "feature", f) for f in feats) + "</p></div>")
        page.heading(2, "Costs traded")
        rows = [[site.link(page, "primitive", p.id), esc(c.factor), prose_inline(c.note)] for p in prims
                for c in p.costs]
        page.raw(table(["primitive", "cost", "how"], rows))
    else:
        orphans = site.orphans()
        page.para("Realizations whose primitive or operator is not in the catalog (fix their "
                  "<code>primitive</code> or <code>operator</code> field):")
        page.raw("<div><ul>" + "".join(f"<li>{site.link(page, 'realization', r.id)}</li>" for r in orphans)
                 + "</ul></div>")
    return page


def write_primitive(site: Site, p: Primitive) -> Page:
    fam_title = site.family_title(p.family)
    page = Page(site.page_of(p), p.title, crumbs=[(layout.PRIMITIVES_INDEX, "Primitives"),
                                                  (layout.family(p.family), fam_title), (None, p.title)],
                hide_toc=True, search_sections=SEARCHED, search_boost=SEARCH_BOOST, search_names=[p.id])
    page.raw(f'<div class="epl-prose">{prose(p.summary)}</div>')
    pairs = [
        ("family", page.a(layout.family(p.family), fam_title)),
        ("scope", f"<code>{esc(p.scope)}</code> (the widest set of threads that cooperate)"),
        ("features exploited", ", ".join(site.link(page, "feature", f) for f in p.features)),
        ("properties relied on", ", ".join(f"<code>{esc(x)}</code>" for x in p.properties)),
        ("measurement contract", f"<code>{esc(p.contract)}</code>" if p.contract else "none yet"),
        ("operators", ", ".join(site.link(page, "operator", o) for o in p.operators) or dash()),
    ]
    if p.also_in:
        pairs.append(("also in", "; ".join(esc(x) for x in p.also_in)))
    page.raw(facts(pairs))
    # Decision first: which realization where, then how far ahead of the peers and the ceiling.
    which_realization_when(site, page, p)
    leaderboard(site, page, p)

    page.heading(2, "Realizations compared")
    realizations_compared(site, page, p, "primitive",
                           "No realization of this primitive exists yet. Add one with "
                           f"<code>epldb new realization {esc(p.id)} NAME</code> "
                           f"({page.a(layout.CONTRIBUTING, 'how')}).")
    _used_inside(site, page, p)

    page.heading(2, "Costs traded")
    page.raw(table(["cost", "how this primitive spends or saves it"],
                   [[f'<span class="epl-nowrap">{esc(c.factor)}</span>', prose_inline(c.note)] for c in p.costs]))
    close_record_page(site, page, p)
    return page


def _used_inside(site: Site, page: Page, p: Primitive) -> None:
    """The realizations that compose this primitive (or one of its realizations) as a building
    block: an operator's kernels use primitives they do not realize."""
    uses = used_inside(site.cat, p.id)
    page.heading(2, "Used inside these realizations")
    if not uses:
        page.para("No realization names this primitive among the building blocks it composes.", "epl-empty")
        return
    page.raw(table(["realization", "realizes", "as the block", "status"],
                   [[site.link(page, "realization", u.realization.id), site.subject_link(page, u.realization.subject),
                     site.link_id(page, "realization" if "/" in u.block else "primitive", u.block),
                     badge(u.realization.status)] for u in uses],
                   caption_html=f"{len(uses)} realization(s) whose <code>composes</code> names "
                                f"<code>{esc(p.id)}</code> or one of its realizations."))


def _pages(site: Site) -> Iterator[Page]:
    yield write_primitives_index(site)
    for fam in site.families():
        yield write_family(site, fam)
    site.say(f"primitive pages ({len(site.cat.primitives)})")
    for p in site.cat.primitives.values():
        yield write_primitive(site, p)


def _paths(site: Site) -> dict[str, str]:
    return {**record_paths(site, "primitive", site.cat.primitives),
            **{f"family:{fam}": layout.family(fam) for fam in site.families()}}


def _nav(site: Site) -> list[Any]:
    """The index and a page per family: each family's page lists its primitives, each primitive's its
    realizations, so the nav stays a screen long however many records there are."""
    return [layout.PRIMITIVES_INDEX] + [{esc(site.family_title(fam)): layout.family(fam)} for fam in site.families()]


KIND = PageKind("primitive", _pages, paths=_paths, nav_title="Primitives", nav=_nav)


__all__ = ["KIND", "write_family", "write_primitive", "write_primitives_index"]
