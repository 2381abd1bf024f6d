"""Feature pages: the index of structural execution features, and a page per feature with the
primitives that exploit it and the operators that show it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from epldb.records import Feature
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.escape import prose, prose_inline
from epldb.site.html import Page, table
from epldb.site.pages.common import first_sentence, record_footer, record_paths
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


def write_features_index(site: Site) -> Page:
    page = Page(layout.FEATURES_INDEX, "Structural execution features")
    page.para("A feature is a structural property of an operator that an execution primitive can exploit. "
              "Each one answers a yes/no question about the operator; a yes opens the primitives listed "
              "on its page.")
    rows = []
    for f in site.cat.features.values():
        rows.append([site.link(page, "feature", f.id), prose_inline(f.question),
                     str(len(site.cat.primitives_where(feature=f.id))), str(len(site.cat.operators_with(f.id)))])
    page.raw(table(["feature", "question", "primitives", "operators"], rows, numeric=[2, 3]))
    return page


def write_feature(site: Site, f: Feature) -> Page:
    cat = site.cat
    page = Page(site.page_of(f), f.title, crumbs=[(layout.FEATURES_INDEX, "Features"), (None, f.title)])
    page.raw(f'<div class="epl-question"><p><strong>Question.</strong> {prose_inline(f.question)}</p></div>')
    page.raw(f'<div class="epl-prose">{prose(f.definition)}</div>')
    page.raw("<div><p><strong>Mathematical properties behind it:</strong> "
             + ", ".join(f"<code>{esc(p)}</code>" for p in f.properties) + "</p></div>")
    if f.example:
        page.heading(2, "Example")
        page.raw(f'<div class="epl-prose">{prose(f.example)}</div>')
    if f.counterexample:
        page.heading(2, "Counterexample")
        page.raw(f'<div class="epl-prose">{prose(f.counterexample)}</div>')
    page.heading(2, "Primitives that exploit it")
    prims = cat.primitives_where(feature=f.id)
    if prims:
        page.raw(table(["primitive", "family", "scope", "realizations", "summary"], [
            [site.link(page, "primitive", p.id), page.a(layout.family(p.family), site.family_title(p.family)),
             esc(p.scope), str(len(cat.realizations_of(p.id))), prose_inline(first_sentence(p.summary))]
            for p in prims], numeric=[3]))
    else:
        page.para("No primitive in the catalog lists this feature yet.", "epl-empty")
    page.heading(2, "Operators that show it")
    ops = cat.operators_with(f.id)
    if ops:
        page.raw(table(["operator", "where it shows"], [
            [site.link(page, "operator", o.id),
             prose_inline(next(x.where for x in o.features if x.feature == f.id))] for o in ops]))
    else:
        page.para("No operator case study lists this feature yet.", "epl-empty")
    record_footer(page, f)
    return page


def _pages(site: Site) -> Iterator[Page]:
    yield write_features_index(site)
    for f in site.cat.features.values():
        yield write_feature(site, f)


def _nav(site: Site) -> list[Any]:
    """The index, then each feature under its id: an id stays short whatever a title says."""
    return [layout.FEATURES_INDEX] + [{esc(f.id): site.page_of(f)} for f in site.cat.features.values()]


KIND = PageKind("feature", _pages, paths=lambda site: record_paths(site, "feature", site.cat.features),
                nav_title="Features", nav=_nav)


__all__ = ["KIND", "write_feature", "write_features_index"]
