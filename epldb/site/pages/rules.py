"""The "Which realization when" section of a primitive's or an operator's page: the decision table
the selection model implies (``epldb.select.rules``, as ``epldb rules SUBJECT`` prints it), one
table per device, computed once per generation (``Site.decisions``); and the cells it shares with
the "Selection, measured" page (``selection.py``): a parameter point, a value that must not wrap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from epldb.records import Operator, Primitive, point_text
from epldb.select.rules import Region
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, dash, table
from epldb.site.pages.common import NO_EVIDENCE, first_sentence
from epldb.site.pages.site import Site

HEADING = "Which realization when"
POINTS_SHOWN = 3  # points listed per region, then "+N"
BASIS_ORDER = ("measured", "interpolated", "extrapolated", "rule")
SELECTION_TITLE = "Selection, measured"  # the page that scores the picks (selection.py)


def which_realization_when(site: Site, page: Page, subject: Primitive | Operator) -> None:
    """The section, when the subject has verified realizations to choose among (else nothing)."""
    found = site.decisions.of(subject.id)
    if found is None:
        return
    page.heading(2, HEADING)
    if isinstance(found, str):
        page.para(f"The decision table could not be computed: {esc(found)}")
        return
    if not found:
        page.para(f"{NO_EVIDENCE}: the table is read off the bench evidence of the verified realizations "
                  f"(<code>epldb bench</code>).")
        return
    by_device: dict[str, list[Region]] = {}
    for r in found:
        by_device.setdefault(r.device, []).append(r)
    for device, regions in by_device.items():
        page.raw(decision_table(site, page, regions,
                                caption_html=f"Picked on {site.device_link(page, device)} from its bench evidence."))
    reasons = {r.realization: r.reason for r in found}
    page.raw("<ul>" + "".join(f"<li>{site.link_id(page, 'realization', rid)}: {esc(first_sentence(why))}</li>"
                             for rid, why in reasons.items() if why) + "</ul>")
    by_output = found[0].beside == "n"  # a matrix product: time per flop over log2(m·n)
    model = ("each realization's best time per flop, interpolated over log2 of the output's size m·n "
             "between its measured sizes (<em>extrapolated</em> outside them), the regions read off "
             "<code>select()</code> at quarter octaves of m·n with n from the nearest bench shape"
             if by_output else
             "each realization's best time per byte, interpolated over log2 of the row length between its "
             "measured row lengths (<em>extrapolated</em> outside them), the regions read off "
             "<code>select()</code> at quarter octaves with the row count scaled to keep the bench shape's "
             "element count")
    page.para("Why each wins there is its record's own account, first sentence above. Computed by the selection "
              f"model (<code>epldb.select</code>): {model}; "
              f"<code>epldb rules {esc(subject.id)}</code> prints the same table. How often such picks are "
              f"right on shapes the model did not see: {page.a(layout.SELECTION, SELECTION_TITLE)}.")


def decision_table(site: Site, page: Page, regions: Sequence[Region], *, caption_html: str | None = None) -> str:
    """One device's regions as a table: dtype, problem, row length, rows, realization, points, basis."""
    axis = regions[0].axis if regions else "cols"
    # Most contracts have no problem parameters beyond the dtype: a column of dashes says nothing.
    with_problem = any(r.problem for r in regions)
    rows = [[esc(r.dtype), *([esc(point_text(r.problem)) or dash()] if with_problem else []),
             nowrap(_span(r.low, r.high, " – ")), nowrap(_span(*r.rows, " → ")) if r.rows is not None else dash(),
             site.link_id(page, "realization", r.realization), _points(site, r), esc(_basis(r.basis))]
            for r in regions]
    beside = regions[0].beside if regions else "rows"
    length = f"row length ({axis})" if beside == "rows" else axis  # a matrix product: m beside n
    header = ["dtype", *(["problem"] if with_problem else []), length, beside, "realization", "points chosen", "basis"]
    first_number = header.index(length)
    return table(header, rows, numeric=[first_number, first_number + 1], caption_html=caption_html)


def nowrap(text: str) -> str:
    """Text (escaped here) kept on one line: a span of row lengths, a shape."""
    return f'<span class="epl-nowrap-plain">{esc(text)}</span>'


def _span(low: int, high: int, sep: str) -> str:
    return str(low) if low == high else f"{low}{sep}{high}"


def _points(site: Site, r: Region) -> str:
    """The region's points (``point_cell``): at most POINTS_SHOWN, then how many more."""
    shown = [point_cell(site, r.realization, p, r.problem) for p in r.points[:POINTS_SHOWN]]
    more = len(r.points) - POINTS_SHOWN
    return "; ".join(shown) + (f" <small>+{more}</small>" if more > 0 else "")


def point_cell(site: Site, realization_id: str, point: Mapping[str, Any], problem: Mapping[str, Any]) -> str:
    """A realization's parameter point as escaped text: its parameters in the record's order, without
    the dtype and the problem (their own columns); a dash when none is left."""
    record = site.cat.realizations.get(realization_id)
    order = list(record.params) if record is not None else []
    return esc(point_text(_ordered(point, order, skip={"dtype", *problem}))) or dash()


def _ordered(point: Mapping[str, Any], order: list[str], skip: set[str]) -> dict[str, Any]:
    names = [n for n in order if n in point] + sorted(n for n in point if n not in order)
    return {n: point[n] for n in names if n not in skip}


def _basis(basis: Sequence[str]) -> str:
    known = [b for b in BASIS_ORDER if b in basis]
    return ", ".join(known + [b for b in basis if b not in BASIS_ORDER])


__all__ = ["BASIS_ORDER", "HEADING", "SELECTION_TITLE", "decision_table", "nowrap", "point_cell",
           "which_realization_when"]
