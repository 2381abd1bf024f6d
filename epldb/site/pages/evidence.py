"""The evidence status page: every realization and what stands behind it (fresh, stale, failing or
missing evidence), the primitives without realizations, and the catalog's problems."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from epldb.evidence.row import params_dict
from epldb.records import Realization
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, badge, dash, table
from epldb.site.pages.common import NO_EVIDENCE, devices
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


def write_evidence_status(site: Site) -> Page:
    cat = site.cat
    page = Page(layout.EVIDENCE_STATUS, "Evidence status")
    page.para("Every realization and what stands behind it. A realization is <em>verified</em> only with fresh "
              "passing evidence on at least one GPU; a row is <em>stale</em> when the kernel source (with "
              "everything it includes) changed after it was measured.")
    verdicts: dict[str, list[Realization]] = {"missing": [], "stale": [], "failing": [], "fresh": []}
    rows = []
    for r in cat.realizations.values():
        own = site.rows_of_realization(r.id)
        if own is None:
            verdict, fresh_n, stale_n, fail_n, devs, last = "missing", 0, 0, 0, "", ""
        else:
            fresh = own[own["fresh"]]
            fresh_n, stale_n = len(fresh), int(own["stale"].sum())
            fail_n = int((~fresh["passed"]).sum())
            devs = ", ".join(sorted(set(own["device"])))
            last = str(own["utc"].iloc[-1])[:19] or str(own["run"].iloc[-1])
            verdict = "stale" if fresh.empty else ("failing" if fresh["passed"].sum() == 0 else "fresh")
        verdicts[verdict].append(r)
        flag = ""
        if r.status == "verified" and verdict != "fresh":
            flag = ' <strong class="epl-bad">verified without fresh passing evidence</strong>'
        rows.append([site.link_id(page, "realization", r.id), badge(r.status), badge(verdict) + flag,
                     str(fresh_n), str(stale_n), str(fail_n), esc(devs) or dash(), esc(last) or dash()])
    counts = {k: len(v) for k, v in verdicts.items()}
    drafts = [r for r in cat.realizations.values() if r.status == "draft"]
    page.raw(f'<div class="epl-summary"><p><strong>{len(cat.realizations)}</strong> realizations: '
             f"{len(cat.realizations) - len(drafts)} verified, {len(drafts)} draft. Evidence: "
             f"{counts['fresh']} fresh, {counts['stale']} stale only, {counts['failing']} failing, "
             f"{counts['missing']} missing.</p></div>")
    if rows:
        page.raw(table(["realization", "status", "evidence", "fresh rows", "stale rows", "failing rows", "devices",
                        "newest"], rows, numeric=[3, 4, 5]))
    for title, items, empty in (
        ("Draft", drafts, "No draft realization."),
        ("Stale evidence", verdicts["stale"], "No realization has only stale evidence."),
        ("Missing evidence", verdicts["missing"], "Every realization has been measured."),
        ("Failing", verdicts["failing"], "No realization fails its newest fresh verification."),
    ):
        page.heading(2, title)
        if items:
            page.raw("<div><ul>" + "".join(f"<li>{site.link(page, 'realization', r.id)} "
                                            f"<small><code>{esc(r.id)}</code></small></li>" for r in items)
                     + "</ul></div>")
        else:
            page.para(empty, "epl-empty")
    _sanitizer_status(site, page)
    page.heading(2, "Primitives without realizations")
    bare = [p for p in cat.primitives.values() if not cat.realizations_of(p.id)]
    if bare:
        page.raw("<div><ul>" + "".join(f"<li>{site.link(page, 'primitive', p.id)} "
                                        f"<small>({esc(site.family_title(p.family))})</small></li>" for p in bare)
                 + "</ul></div>")
    else:
        page.para("Every primitive has at least one realization.", "epl-empty")
    page.heading(2, "Devices")
    names = devices(site)
    page.raw("<div><p>" + (", ".join(page.a(layout.device(d), d) for d in names) if names else
                           f"{NO_EVIDENCE}: no runs under <code>evidence/</code>.") + "</p></div>")
    problems = [p for p in cat.problems if p.severity == "error"]
    if problems or site.data.notes:
        page.heading(2, "Catalog and site problems")
        lines = [f"<li><code>{esc(p.format())}</code></li>" for p in problems[:200]]
        lines += [f"<li>{esc(n)}</li>" for n in site.data.notes]
        page.raw("<div><ul>" + "".join(lines) + "</ul></div>")
    return page


def _sanitizer_status(site: Site, page: Page) -> None:
    """Every realization under each compute-sanitizer tool: its newest row over all devices, as a
    grid, with the counts above it (the bar: no errors anywhere, every pair fresh)."""
    from epldb.sanitize import OUTCOMES, TOOLS, outcome

    page.heading(2, "Sanitizer")
    grid, tally = [], {**dict.fromkeys(OUTCOMES, 0), "stale": 0, "not run": 0}
    for r in site.cat.realizations.values():
        newest = site.sanitizer_newest(r.id)
        cells = []
        for tool in TOOLS:
            mine = None if newest is None else newest[[params_dict(p).get("tool") == tool for p in newest["params"]]]
            if mine is None or mine.empty:
                state = "not run"
                cells.append(dash())
            else:
                row = mine.sort_values(["utc", "run"]).iloc[-1]
                state = outcome(str(row["status"]), str(row["detail"]))
                if state == "clean" and bool(row["stale"]):
                    state = "stale"
                kind = {"clean": "pass", "stale": "stale"}.get(state, "fail")
                cells.append(f'<span title="{esc(str(row["detail"]))}">{badge(state, kind)}</span>')
            tally[state] += 1
        grid.append([site.link_id(page, "realization", r.id), *cells])
    pairs = sum(tally.values())
    page.raw(f'<div class="epl-summary"><p>Each realization\'s verification (odd shapes, poisoned outputs) under '
             f"memcheck, racecheck, synccheck and initcheck (<code>epldb sanitize</code>): of {pairs} "
             f"(realization, tool) pairs, {tally['clean']} clean, {tally['errors']} with errors, "
             f"{tally['check failed']} with no error reported but a verification check failed under the tool, "
             f"{tally['failed to run']} failed to run, {tally['stale']} clean on a kernel that changed since, "
             f"{tally['not run']} not run.</p></div>")
    if grid:
        page.raw(table(["realization", *TOOLS], grid,
                       caption_html="The newest row over every device; hover a status for its detail. "
                                    "A realization's page has a row per device."))


def _pages(site: Site) -> Iterator[Page]:
    yield write_evidence_status(site)


def _nav(site: Site) -> list[Any]:
    return [{"Status": layout.EVIDENCE_STATUS}]


KIND = PageKind("evidence", _pages, nav_title="Evidence", nav=_nav)


__all__ = ["KIND", "write_evidence_status"]
