"""Operator pages: the index of operator case studies, and a page per operator with its
decomposition into features and primitives, its composed realizations compared, which one the
evidence picks when, and its standing against the peers. The Operators nav section lists the
operators by id; each operator's page links its realizations."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from epldb.records import Operator
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.escape import prose, prose_inline
from epldb.site.html import Page, badge, dash, gbps, table
from epldb.site.pages.closing import close_record_page
from epldb.site.pages.common import first_sentence, record_paths, subject_nav
from epldb.site.pages.comparison import realizations_compared
from epldb.site.pages.kind import PageKind
from epldb.site.pages.ladder import ladder
from epldb.site.pages.leaderboard import leaderboard
from epldb.site.pages.rules import which_realization_when
from epldb.site.pages.site import Site
from epldb.site.uses import stage_kernels, used_inside

#: The sections of an operator page the site search indexes, beside its title, summary and math: what
#: it is made of and which realization wins where (tables themselves are never indexed).
SEARCHED = ("Decomposition", "Features it shows", "Stages", "Realizations compared", "Ladder", "Which realization when",
            "Degenerate inputs", "Notes")
#: An operator's name finds its own page first, before the realizations and experiments that name it.
SEARCH_BOOST = 10.0


def search_names(rid: str, others: Collection[str]) -> list[str]:
    """The names a record's page is found by (``Page(search_names=...)``): its id, and each word of a
    hyphenated id that is no other record's id ("log" of log-softmax, not "softmax": the softmax
    page's own name), so "log-softmax" finds the log-softmax page first and "softmax" the softmax page."""
    words = rid.split("-")
    return [rid] + ([w for w in words if w not in others] if len(words) > 1 else [])


def write_operators_index(site: Site) -> Page:
    page = Page(layout.OPERATORS_INDEX, "Operator case studies")
    page.para("Operators are not implemented one by one: each is decomposed into features and primitives, "
              "and a realization of the whole operator is composed from the primitives' building blocks.")
    page.raw(table(["operator", "stages", "features", "realizations", "summary"],
                   [[site.link(page, "operator", o.id),
                     " → ".join(site.link_id(page, "primitive", s.primitive) for s in o.decomposition),
                     str(len(o.features)), str(len(site.cat.realizations_of(o.id)) or len(stage_kernels(site.cat, o))),
                     prose_inline(first_sentence(o.summary))]
                    for o in site.cat.operators.values()], numeric=[2, 3]))
    return page


def write_operator(site: Site, o: Operator) -> Page:
    page = Page(site.page_of(o), o.title, crumbs=[(layout.OPERATORS_INDEX, "Operators"), (None, o.title)],
                search_sections=SEARCHED, search_boost=SEARCH_BOOST,
                search_names=search_names(o.id, site.cat.operators))
    page.raw(f'<div class="epl-prose">{prose(o.summary)}</div>')
    page.raw(f'<div class="epl-math"><pre><code>{esc(o.math)}</code></pre></div>')
    # Decision first: which realization where, then how far ahead of the peers and the ceiling.
    which_realization_when(site, page, o)
    leaderboard(site, page, o)
    page.heading(2, "Decomposition")
    page.para("Operator → structural features → execution primitives, stage by stage in execution order.")
    page.raw(_decomposition_flow(site, page, o))
    page.heading(2, "Features it shows")
    page.raw(table(["feature", "where it shows"],
                   [[site.link(page, "feature", f.feature), prose_inline(f.where)] for f in o.features]))
    page.heading(2, "Stages")
    page.raw(table(["#", "stage", "primitive", "realizations", "used inside", "role"],
                   [[str(i), esc(s.name), site.link(page, "primitive", s.primitive),
                     str(len(site.cat.realizations_of(s.primitive))), str(len(used_inside(site.cat, s.primitive))),
                     prose_inline(s.role)]
                    for i, s in enumerate(o.decomposition, 1)], numeric=[3, 4],
                   caption_html="Realizations: of the primitive itself. Used inside: realizations that compose "
                                "it as a building block, this operator's kernels among them."))
    page.heading(2, "Realizations compared")
    page.raw("<div><p>Realizations of the whole operator, each composed from building blocks (realizations of "
             "its stages' primitives). Measurement contract: "
             + (f"<code>{esc(o.contract)}</code>" if o.contract else "none yet")
             + ". Peers timed beside them: " + _peers(o) + ".</p></div>")
    realizations_compared(site, page, o, "operator",
                           "No realization of this operator exists yet: one is a record "
                           f"<code>catalog/realizations/{esc(o.id)}/NAME.yaml</code> with "
                           f"<code>operator: {esc(o.id)}</code>, its kernel under "
                           f"<code>kernels/operators/{esc(o.id)}/</code>. Its stages' primitives are measured on "
                           "their own pages.")
    ladder(site, page, o)
    _against_the_peers(site, page, o)
    if o.degenerate:
        page.heading(2, "Degenerate inputs")
        page.para("What the operator returns where the input is degenerate, as torch does; the exact cases are "
                  "verified bit for bit on the GPU (the contract's exact outputs).")
        page.raw(table(["input", "result"], [[esc(case), prose_inline(text)] for case, text in o.degenerate]))
    close_record_page(site, page, o)
    return page


def _peers(o: Operator) -> str:
    """The operator's peers by name, each with what its contract runs (lint rule peers-measured
    keeps the names to those the contract implements)."""
    from epldb.contracts import get_contract

    contract = get_contract(o.contract)
    titles = {p.name: p.title for p in contract.peers()} if contract is not None else {}
    return "; ".join(f"<code>{esc(x)}</code>" + (f" ({esc(titles[x])})" if x in titles else "") for x in o.peers)


def _against_the_peers(site: Site, page: Page, o: Operator) -> None:
    """The operator's standing at each measured shape: its best verified realization against the
    strongest peer of the same run (``epldb compare``'s rows), with the run's copy ceiling and the
    size-matched reference beside it; then the counts per device and dtype."""
    from epldb.site.data import knobs_label, params_label, shape_label
    from epldb.standings import COPY_SHARE, standings, tally

    if site.ev is None:
        return
    rows = standings(site.cat, site.ev, ids=[o.id])
    if not rows:
        return
    strongest: dict[tuple[str, str, str, str], Any] = {}
    for s in rows:  # standings come one per peer: keep the fastest peer of each shape
        key = (s.device, s.dtype, s.problem, s.shape)
        if key not in strongest or s.peer.gbps > strongest[key].peer.gbps:
            strongest[key] = s
    page.heading(2, "Against the peers")
    page.para("At each shape, the fastest verified realization against the fastest peer timed in the same run "
              "(medians; ahead or behind only where the p10-p90 ranges part), as <code>epldb compare</code> "
              "gives it. Of copy: the share of the run's device copy ceiling. Of at-size: the share of a plain "
              "copy (or, for a reduction, a plain read) of the shape's own bytes in the same run, which pays the "
              "launch and the memory system's ramp as the kernel does. Each shape's run is the newest that timed "
              "every realization any run timed there; where none did, the newest, marked partial.")

    def share(v: float | None) -> str:  # three places: 0.899 must not read as the 0.90 bar
        return dash() if v is None else f"{v:.3f}"

    # The verdict first after the two rates it compares (margin, p10-p90), the shares of the ceilings
    # after it; a problem column only where a contract has problem parameters beyond the dtype.
    with_problem = any(params_label(s.problem) for s in strongest.values())
    body = [[site.device_link(page, s.device), esc(s.dtype), *([esc(params_label(s.problem))] if with_problem else []),
             f'<span class="epl-nowrap-plain">{esc(shape_label(s.shape))}</span>',
             site.link_id(page, "realization", s.best.subject), esc(knobs_label(s.best.params, s.problem)),
             gbps(s.best.gbps), esc(s.peer.subject.split("/", 1)[-1]), gbps(s.peer.gbps), f"{100 * s.margin:+.1f}%",
             badge(s.verdict), share(s.of_copy), share(s.of_at_size), esc(s.run) + ("" if s.complete else " (partial)")]
            for s in strongest.values()]
    header = ["device", "dtype", *(["problem"] if with_problem else []), "shape", "best", "at", "GB/s", "peer",
              "peer GB/s", "margin", "p10-p90", "of copy", "of at-size", "run"]
    first_rate = header.index("GB/s")
    page.raw(table(header, body, numeric=[first_rate, first_rate + 2, first_rate + 3, first_rate + 5, first_rate + 6]))
    counts = [[site.device_link(page, device), esc(dtype), *([esc(params_label(problem))] if with_problem else []),
               str(t.shapes), str(t.at_least_median), str(t.ahead), str(t.level), str(t.behind), str(t.at_copy_share),
               str(t.at_size_share)]
              for (device, _contract, dtype, problem), t in sorted(tally(rows).items())]
    first_count = 3 if with_problem else 2
    page.raw(table(["device", "dtype", *(["problem"] if with_problem else []), "shapes", "median >= peer", "ahead",
                    "level", "behind", f">= {COPY_SHARE:.0%} of copy", f">= {COPY_SHARE:.0%} of at-size"], counts,
                   numeric=list(range(first_count, first_count + 7))))


def _decomposition_flow(site: Site, page: Page, o: Operator) -> str:
    feats = "".join(f'<li>{site.link(page, "feature", f.feature)}</li>' for f in o.features)
    stages = []
    for i, s in enumerate(o.decomposition, 1):
        prim = site.cat.primitives.get(s.primitive)
        fam = f'<span class="epl-fam epl-fam--{esc(prim.family)}">{esc(site.family_title(prim.family))}</span>' if prim else ""
        n = len(site.cat.realizations_of(s.primitive))
        inside = len(used_inside(site.cat, s.primitive))
        stages.append(f'<div class="epl-stage"><div class="epl-stage__n">{i}</div>'
                      f'<div class="epl-stage__name">{esc(s.name)}</div>'
                      f'<div class="epl-stage__prim">{site.link(page, "primitive", s.primitive)}</div>{fam}'
                      f'<div class="epl-stage__meta">{n} realization{"s" if n != 1 else ""} · '
                      f'used inside {inside}</div></div>')
    arrow = '<div class="epl-arrow" aria-hidden="true">→</div>'
    return (f'<div class="epl-decomp"><div class="epl-decomp__op"><div class="epl-decomp__label">operator</div>'
            f"<strong>{esc(o.title)}</strong></div>{arrow}"
            f'<div class="epl-decomp__feats"><div class="epl-decomp__label">features</div><ul>{feats}</ul></div>{arrow}'
            f'<div class="epl-decomp__stages"><div class="epl-decomp__label">primitives, in stage order</div>'
            f'<div class="epl-stages">{arrow.join(stages)}</div></div></div>')


def _pages(site: Site) -> Iterator[Page]:
    site.say(f"operator pages ({len(site.cat.operators)})")
    yield write_operators_index(site)
    for o in site.cat.operators.values():
        yield write_operator(site, o)


def _nav(site: Site) -> list[Any]:
    return [layout.OPERATORS_INDEX] + [subject_nav(site, o) for o in site.cat.operators.values()]


KIND = PageKind("operator", _pages, paths=lambda site: record_paths(site, "operator", site.cat.operators),
                nav_title="Operators", nav=_nav)


__all__ = ["KIND", "write_operator", "write_operators_index"]
