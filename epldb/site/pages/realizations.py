"""Realization pages: a page per realization (of a primitive, or composed for an operator) with its
strategy, latest runs, parameters, launch plan, kernel source, resources, machine-code claims and
evidence. Not in the nav: each is linked from its primitive's or operator's page (and named in the generated
``not_in_nav``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from epldb.evidence.boards import board_of
from epldb.evidence.row import params_dict
from epldb.records import Operator, Realization
from epldb.site import history, layout, static
from epldb.site import views as V
from epldb.site.charts import Chart, Series
from epldb.site.escape import html as esc
from epldb.site.escape import prose, prose_inline
from epldb.site.html import Page, badge, check, dash, gbps, ms, pct, sci, size_field, source_block, table
from epldb.site.pages.closing import close_record_page
from epldb.site.pages.common import (NO_EVIDENCE, basis_anchor, best_by_shape, det_cell, facts, flatten,
                                     local_includes, record_paths, shape_labels)
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site

if TYPE_CHECKING:
    import pandas as pd


POINTS_SHOWN = 24  # parameter points listed at the largest shape; a CSV beside the page holds them all
POINTS_CHARTED = 4  # parameter points drawn beside the best-per-shape line (each measured at two shapes or more)

#: The sections of a realization page the site search indexes, beside its title and summary: how it
#: works and when it wins. Launch plans, sources, resources and evidence are numbers and identifiers.
SEARCHED = ("Composed from", "Strategy", "When it wins", "Notes")
#: Below its operator's or primitive's page (pages/operators.py, primitives.py) in the results.
SEARCH_BOOST = 2.0


def write_realization(site: Site, r: Realization) -> Page:
    cat = site.cat
    subject = cat.subject_of(r)
    crumbs: list[tuple[str | None, str]]
    if isinstance(subject, Operator):
        crumbs = [(layout.OPERATORS_INDEX, "Operators"), (site.page_of(subject), subject.title)]
    else:
        fam = site.family_of(r.subject)
        crumbs = [(layout.PRIMITIVES_INDEX, "Primitives"), (layout.family(fam), site.family_title(fam))]
        if subject:
            crumbs.append((site.page_of(subject), subject.title))
    crumbs.append((None, r.title))
    page = Page(site.page_of(r), r.title, crumbs=crumbs, contents=True,  # not in the nav: its own contents
                search_sections=SEARCHED, search_boost=SEARCH_BOOST)
    page.raw(f'<div class="epl-status">{badge(r.status)} <code>{esc(r.id)}</code> · realizes '
             f'{r.subject_kind} {site.link(page, r.subject_kind, r.subject)} · determinism '
             f'<code>{esc(r.determinism)}</code> · '
             f'targets {", ".join(f"<code>{esc(t)}</code>" for t in r.targets)}</div>')
    if r.status == "draft":
        page.raw('<div class="admonition warning"><p class="admonition-title">Draft</p><p>This realization '
                 "has no fresh passing evidence on a GPU yet; its claims about speed are predictions.</p></div>")
    page.raw(f'<div class="epl-prose">{prose(r.summary)}</div>')

    if r.composes:
        page.heading(2, "Composed from")
        page.raw(table(["building block", "kind"], [
            [site.link(page, kind, block), kind]
            for block in r.composes for kind in ["realization" if "/" in block else "primitive"]]))

    page.heading(2, "Strategy")
    page.raw('<div class="epl-phases"><ol>' + "".join(
        f"<li><strong>{esc(ph.name)}</strong>. {prose_inline(ph.text)}</li>" for ph in r.strategy) + "</ol></div>")
    if r.when_it_wins:
        page.heading(2, "When it wins")
        page.raw(f'<div class="epl-prose">{prose(r.when_it_wins)}</div>')
    _latest_runs(site, page, r)

    page.heading(2, "Parameters")
    n_points = len(r.points())
    page.raw(table(["parameter", "values"], [[f"<code>{esc(k)}</code>", ", ".join(f"<code>{esc(v)}</code>" for v in vs)]
                                            for k, vs in r.params.items()],
                   caption_html=f"{n_points} parameter point{'s' if n_points != 1 else ''} "
                                + (f"(the cross product's {len(r.points_crossed())} where <code>params_when</code>, "
                                   f"<code>{esc(r.params_when)}</code>, is nonzero); " if r.params_when is not None
                                   else "(the cross product); ")
                                + "every one is built for every target."))

    page.heading(2, "Launch plan")
    page.raw(_launch_plan(r))

    page.heading(2, "Kernel source")
    _kernel_source(site, page, r)

    builds = site.builds_of(r)
    page.heading(2, "Resources per target")
    page.raw(_resources(site, page, r, builds))
    page.heading(2, "Machine code: claims and SASS facts")
    page.raw(_claims(r, builds))
    _sass_facts(page, r, builds)

    page.heading(2, "Evidence")
    rows = site.rows_of_realization(r.id)
    if rows is None:
        page.para(f"{NO_EVIDENCE}: this realization has not been measured on a GPU. "
                  f"<code>epldb verify {esc(r.id)}</code> and <code>epldb bench</code> on a GPU machine write it.",
                  "epl-empty")
    else:
        _evidence_section(site, page, r, rows)
    _sanitizer_section(site, page, r)
    close_record_page(site, page, r)
    return page


def _sanitizer_section(site: Site, page: Page, r: Realization) -> None:
    """Per device and compute-sanitizer tool, the newest row: clean, or the first reports."""
    page.heading(3, "Sanitizer")
    newest = site.sanitizer_newest(r.id)
    if newest is None:
        page.para(f"Not run under compute-sanitizer yet: <code>epldb sanitize {esc(r.id)}</code> on a GPU runs its "
                  "verification under memcheck, racecheck, synccheck and initcheck.", "epl-empty")
        return
    from epldb.sanitize import outcome

    body = []
    for row in newest.itertuples(index=False):
        state = outcome(str(row.status), str(row.detail))
        status = badge(state, "pass" if state == "clean" else "fail")
        if bool(row.stale):
            status += " " + badge("stale", "stale")
        body.append([site.device_link(page, str(row.device)), esc(str(params_dict(row.params).get("tool", ""))), status,
                     f"<code>{esc(str(row.run))}</code>", f"<small>{esc(str(row.detail))}</small>"])
    page.raw(table(["device", "tool", "status", "run", "detail"], body,
                   caption_html="The verification's odd shapes under each tool, newest run per device and tool "
                                "(<code>epldb sanitize</code>); stale: the kernel changed since."))


def _latest_runs(site: Site, page: Page, r: Realization) -> None:
    """Its newest bench run against its subject's other realizations and the peers, and its best
    rates across runs and commits: numbers from the evidence at every build, none from the record."""
    rows = site.rows_of_realization(r.id)
    lead = site.leads.latest(r) if site.leads is not None and rows is not None else None
    if lead is None or rows is None or site.leads is None:
        return
    page.heading(2, "Latest runs")
    page.para(esc(lead.summary()))
    page.raw(history.standing_table(lead))
    charts = history.histories(r.id, rows, site.order(r.subject), site.leads.commits)
    if charts:
        page.heading(3, "History across runs")
        page.para("Every bench run that timed it, oldest first, labelled with its date and the commit it measured; "
                  f"a line per shape (up to {history.MAX_SHAPES} of the shapes the most runs timed), each point its best "
                  "passing rate at that shape in that run. Shaded, the points open: a run of a kernel source that "
                  "has changed since (stale rows).")
    for h in charts:
        page.raw(site.chart(page, f"{r.name}-{h.device}-{'-'.join(h.problem)}-history", h.chart))


def _launch_plan(r: Realization) -> str:
    plan = r.launch
    if not plan:
        return "<div><p class=\"epl-empty\">No launch plan: this realization cannot be run by <code>epldb.run</code> yet.</p></div>"

    def dims(v: Any) -> str:
        if isinstance(v, list):
            return ", ".join(f"<code>{esc(x)}</code>" for x in v)
        return f"<code>{esc(v)}</code>" if v is not None else dash()

    def entry(s: dict) -> str:
        out = f"<code>{esc(s.get('entry'))}</code>"
        when = f" or <code>{esc(s['unaligned_when'])}</code> &ne; 0" if "unaligned_when" in s else ""
        if s.get("split_entry"):
            out += (f"<br><small>else <code>{esc(s['split_entry'])}</code> (rows split by address): when an "
                    f"array is not 16-byte aligned{when}</small>")
            if s.get("unaligned_entry"):
                out += (f"<br><small>else <code>{esc(s['unaligned_entry'])}</code>: when the arrays are not "
                        "all at one address mod 16</small>")
        elif s.get("unaligned_entry"):
            out += (f"<br><small>else <code>{esc(s['unaligned_entry'])}</code>: when an array is not "
                    f"16-byte aligned{when}</small>")
        return out

    def grid(s: dict) -> str:
        out = dims(s.get("grid"))
        if s.get("resident"):
            out += "<br><small>every block resident at once (claimed; checked on the GPU)</small>"
        return out

    steps = [[str(i), entry(s), grid(s), dims(s.get("block")),
              dims(s.get("shared_bytes", 0)), dims(s.get("cluster")), dims(s.get("args", []))]
             for i, s in enumerate(plan.get("steps", []), 1)]
    out = table(["#", "entry", "grid", "block", "dynamic smem (B)", "cluster", "arguments"], steps,
                caption_html="Launches in order on one stream; expressions are evaluated per shape and "
                             "parameter point in the launch-plan language.")
    scratch = plan.get("scratch") or {}
    if scratch:
        out += table(["scratch buffer", "dtype", "count", "zeroed"],
                     [[f"<code>{esc(k)}</code>", esc(v.get("dtype")), f"<code>{esc(v.get('count'))}</code>",
                       "yes" if v.get("zero") else "poisoned"] for k, v in scratch.items()])
    domain = plan.get("domain") or {}
    if domain:
        out += table(["shape variable", "at least", "at most"],
                     [[f"<code>{esc(var)}</code>", dims(b.get("min")), dims(b.get("max"))] for var, b in domain.items()],
                     caption_html="Domain: the shapes each parameter point serves (inclusive bounds, evaluated "
                                  "per point); outside them a point is neither verified nor timed, and "
                                  "<code>epldb.run</code> picks a point that serves the shape.")
    return out


def _kernel_source(site: Site, page: Page, r: Realization) -> None:
    """The entry points, the kernel's source (plain, collapsed, with its raw file copied once under
    ``generated/kernels/``) and links to the headers it includes, whose sources are on the basis
    pages: a header is shown once on the site, not on every realization that includes it."""
    root = site.cat.root
    path = root / r.kernel_path
    page.raw("<div><p>Entry points: " + ", ".join(
        f"<code>{esc(e.name)}</code> = <code>{esc(e.expression)}</code>" for e in r.kernel.entries) + "</p></div>")
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        page.para(f"The kernel source <code>{esc(r.kernel_path)}</code> cannot be read: {esc(exc)}", "epl-empty")
        return
    raw = layout.source_copy(str(r.kernel_path))
    site.out.files[raw] = path.read_bytes()
    lines = source.count("\n") + (0 if source.endswith("\n") else 1)
    page.raw(source_block(f"<code>{esc(r.kernel_path)}</code> ({lines} lines) · "
                          f'<a href="{esc(layout.rel(page.path, raw))}">raw file</a>', source))
    include = root / "kernels" / "include"
    direct = local_includes(include, source, path.parent, deep=False)
    everything = local_includes(include, source, path.parent)
    if direct:
        page.raw("<div><p>The building blocks it includes directly, from <code>kernels/include/</code> (the "
                 "codegen basis; each links to its source there): " + ", ".join(
                     _basis_link(page, name) for name, _ in direct) + ".</p></div>")
    deeper = [name for name, _ in everything if name not in {n for n, _ in direct}]
    if deeper:
        page.raw("<div><p>And through them: " + ", ".join(_basis_link(page, name) for name in deeper) + ".</p></div>")


def _basis_link(page: Page, rel_name: str) -> str:
    return (f'<a href="{esc(page.href(layout.basis_room(rel_name)))}#{esc(basis_anchor(rel_name))}">'
            f"<code>{esc(rel_name)}</code></a>")


def _resources(site: Site, page: Page, r: Realization, builds: dict[str, Any]) -> str:
    rows = []
    for t in r.targets:
        s = static.summarize(t, builds.get(t))
        if s is None:
            rows.append([f"<code>{esc(t)}</code>", f'<span class="epl-none">{esc(static.why_missing(builds.get(t)))}</span>',
                         "", "", "", "", "", ""])
            continue
        rng = lambda a: str(a[0]) if a[0] == a[1] else f"{a[0]}–{a[1]}"  # noqa: E731
        rows.append([f"<code>{esc(t)}</code>", str(s.builds), rng(s.registers), rng(s.shared), str(s.stack),
                     "0" if s.spill_bytes == 0 else f'<strong class="epl-bad">{s.spill_bytes}</strong>',
                     rng(s.barriers), esc(s.nvrtc)])
    out = table(["target", "builds", "registers", "static smem (B)", "stack (B)", "spill bytes", "barriers", "NVRTC"],
                rows, numeric=[1, 2, 3, 4, 5, 6],
                caption_html="Ranges over every entry and parameter point, from ptxas (no GPU needed).")
    detail_rows = []
    for t in r.targets:
        for e in static.entries_of(builds.get(t)) if static.is_build(builds.get(t)) else []:
            detail_rows.append([t, e.entry, static.point_label(e.point), e.registers, e.static_shared_bytes,
                                e.stack_bytes, e.spill_store_bytes, e.spill_load_bytes, e.barriers,
                                *(e.sass.get(op, 0) if e.sass else "" for op in static.KEY_OPCODES)])
    if detail_rows:
        link = site.data_file(page, f"{r.name}-builds", ["target", "entry", "point", "registers", "static_smem_bytes",
                                                         "stack_bytes", "spill_store_bytes", "spill_load_bytes",
                                                         "barriers", *static.KEY_OPCODES], detail_rows)
        out += (f"<p>Every build ({len(detail_rows)}: target × entry × parameter point, with the key SASS "
                f"opcode counts): {link}.</p>")
    problems = []
    for t in r.targets:
        b = builds.get(t)
        for prob in getattr(b, "problems", ()) if static.is_build(b) else ():
            problems.append(f"<li>{badge(getattr(prob, 'severity', 'error'))} <code>{esc(t)}</code> "
                            f"{esc(getattr(prob, 'message', prob))}</li>")
    if problems:
        out += '<div class="epl-problems"><p>Build problems:</p><ul>' + "".join(problems[:40]) + "</ul></div>"
    return f"<div>{out}</div>"


def _claims(r: Realization, builds: dict[str, Any]) -> str:
    results = static.claim_results(r, builds)
    if not results:
        return '<div><p class="epl-empty">This realization makes no machine-code claims.</p></div>'
    rows = []
    for c in results:
        cells = [esc(c.claim)]
        for t in r.targets:
            ok, detail = c.per_target[t]
            cells.append(f"{check(ok)} <small>{esc(detail)}</small>")
        rows.append(cells)
    return table(["claim", *r.targets], rows,
                 caption_html="Claims from the record, checked on every build (entry × parameter point) of each target.")


def _sass_facts(page: Page, r: Realization, builds: dict[str, Any]) -> None:
    per_target = {t: static.entries_of(builds.get(t)) for t in r.targets if static.is_build(builds.get(t))}
    per_target = {t: es for t, es in per_target.items() if es and es[0].sass}
    if not per_target:
        return
    first = next(iter(per_target.values()))[0]
    opcodes = sorted({op for es in per_target.values() for op in es[0].sass},
                     key=lambda op: (-max(es[0].sass.get(op, 0) for es in per_target.values()), op))
    rows = [[f"<code>{esc(op)}</code>", *(str(es[0].sass.get(op, 0)) for es in per_target.values())] for op in opcodes]
    rows.append(["<strong>all</strong>", *(str(sum(es[0].sass.values())) for es in per_target.values())])
    page.raw(f'<details class="epl-details"><summary>SASS opcode histogram at {esc(static.point_label(first.point))} '
             f"(entry <code>{esc(first.entry)}</code>)</summary>"
             + table(["opcode", *per_target], rows, numeric=list(range(1, len(per_target) + 1))) + "</details>")


def _evidence_section(site: Site, page: Page, r: Realization, rows: "pd.DataFrame") -> None:
    prim_rows = site.rows_of_primitive(r.subject)
    context = prim_rows if prim_rows is not None else rows
    latest = V.latest(rows)
    stale_only = latest.empty
    if stale_only:
        latest = V.latest(rows, fresh_only=False)
        page.raw('<div class="admonition warning"><p class="admonition-title">Stale</p><p>Every row was '
                 "measured on a kernel source that has changed since; rerun <code>epldb verify</code> and "
                 "<code>epldb bench</code>.</p></div>")
    passed = int(latest["passed"].sum())
    page.para(f"{len(rows)} row(s) in {rows['run'].nunique()} run(s); newest per measured point: {len(latest)}, "
              f"{passed} passing. Runs: "
              + ", ".join(f"<code>{esc(x)}</code>" for x in sorted(set(rows["run"]))) + ".")
    order = site.order(r.subject)
    ceilings = V.Ceilings(context)

    page.heading(3, "Verification")
    page.raw(_verification_table(site, page, r, latest, order))

    timed = latest[latest["timed"]]
    page.heading(3, "Timing")
    if timed.empty:
        page.para("Not timed yet: <code>epldb bench</code> on a GPU writes the timing rows.", "epl-empty")
    for device in sorted(set(timed["device"])):
        for problem in V.problems(timed[timed["device"] == device], order):
            scope = V.of_problem(timed[timed["device"] == device], problem)
            shapes = V.ordered_shapes(scope)
            labels = shape_labels(scope)
            # The best point at every measured shape (one line), then the parameter points measured
            # at more than one shape that are fastest at the largest, the peers and the ceiling. A
            # point timed at one shape only is a dot that hides the rest: the table lists it.
            ok = scope[scope["passed"]]
            largest = shapes[-1]
            best_line = V.best_per_shape(scope)
            series: list[Series] = []
            if not best_line.empty:
                series.append(Series("best point at each shape", "realization",
                                     {labels[s]: float(g) for s, g in zip(best_line["shape"], best_line["gbps"])}, 0))
            else:  # timed, but failing verification everywhere: its fastest timed point per shape, hollow
                fails = scope[scope["gbps"].notna()].sort_values("gbps", kind="stable").drop_duplicates("shape", keep="last")
                series.append(Series("fastest point at each shape (fails verification)", "realization",
                                     {labels[s]: float(g) for s, g in zip(fails["shape"], fails["gbps"])}, 0,
                                     hollow=True))
            spans = ok.groupby("knobs_label", sort=False)["shape"].nunique()
            ranked = ok[ok["shape"] == largest].sort_values("gbps", ascending=False, kind="stable")["knobs_label"].tolist()
            keep = [k for k in dict.fromkeys(ranked) if spans.get(k, 0) > 1][:POINTS_CHARTED]
            series += [Series(label or "(default)", "realization",
                              {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])}, i)
                       for i, label in enumerate(keep, 1) for b in [ok[ok["knobs_label"] == label]]]
            peers = V.of_problem(V.latest(context, fresh_only=not stale_only), problem)
            peers = V.best_per_shape(peers[(peers["kind"] == "peer") & (peers["device"] == device)])
            for subject in sorted(set(peers["subject"])):
                b = peers[(peers["subject"] == subject) & peers["shape"].isin(shapes)]
                if not b.empty:
                    plabel = str(b["subject_label"].iloc[0])
                    series.append(Series(plabel, "peer", {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])},
                                         peer=subject.split("/", 1)[-1]))
            ceiling = {labels[s]: c for s in shapes if (c := ceilings.at(device, problem[0], s))}
            label = V.problem_label(problem) or "all"
            title = f"{r.id} on {device}: {label}" + (" (stale)" if stale_only else "")
            page.heading(4, f"{device}: {label}")
            page.raw(site.chart(page, f"{r.name}-{device}-{'-'.join(problem)}",
                                Chart(title=title, shapes=[labels[s] for s in shapes], series=series, ceiling=ceiling,
                                      ceiling_label=site.ceiling_label(device, ceiling), from_zero=False)))
            best_at = best_by_shape(V.best_per_shape(scope), r.id)
            page.raw(table(["shape", "best point", "GB/s", "% ceiling", "median ms (p10–p90)", "points timed",
                            "target", "status"],
                           [[esc(labels[s]), esc(b["knobs_label"]), gbps(b["gbps"]), pct(b["frac_ceiling"]),
                             f"{ms(b['time_ms_median'])} <small>({ms(b['time_ms_p10'])}–{ms(b['time_ms_p90'])})</small>",
                             str(int((scope["shape"] == s).sum())), esc(b["target"]), badge(str(b["status"]))]
                            for s in shapes for b in [best_at.get(s)] if b is not None],
                           numeric=[2, 3, 4, 5]))
            at = scope[scope["shape"] == largest].sort_values("gbps", ascending=False, kind="stable")
            points = list(zip(at["knobs_label"], at["gbps"], at["frac_ceiling"], at["time_ms_median"],
                              at["time_ms_p10"], at["time_ms_p90"], at["status"]))
            listed = table(["point", "GB/s", "% ceiling", "median ms (p10–p90)", "status"],
                           [[esc(k), gbps(g), pct(f), f"{ms(m)} <small>({ms(lo)}–{ms(hi)})</small>", badge(str(st))]
                            for k, g, f, m, lo, hi, st in points[:POINTS_SHOWN]], numeric=[1, 2, 3])
            if len(points) > POINTS_SHOWN:
                link = site.data_file(page, f"{r.name}-{device}-{'-'.join(problem)}-points",
                                      ["point", "gbps", "frac_ceiling", "time_ms_median", "time_ms_p10",
                                       "time_ms_p90", "status"], [list(p) for p in points])
                listed += f"<p>The fastest {POINTS_SHOWN} of {len(points)}; all of them: {link}.</p>"
            page.raw(f'<details class="epl-details"><summary>Every parameter point at {esc(labels[largest])} '
                     f"({len(at)})</summary>" + listed + "</details>")
    # Every row is in its run's Parquet file, linked below; a table or CSV of the newest rows here
    # repeated those files on every measured realization's page (a tenth of each page, or ~1 MB of CSV).
    page.para(f"Every row ({len(rows)}) is in the Parquet files of its {rows['run'].nunique()} run(s), each linked "
              "below beside its environment.")
    page.heading(3, "Environment of each run")
    page.raw(_env_table(site, page, sorted(set(rows["run"]), key=lambda x: (site.data.runs[x].utc if x in site.data.runs else "", x))))


FAILING_SHOWN = 12  # failing points listed on the page; a CSV beside it holds them all


def _verification_table(site: Site, page: Page, r: Realization, latest: "pd.DataFrame",
                        order: dict[str, list[object]]) -> str:
    """One line per problem: shapes checked, parameter points × shapes passed, worst errors,
    determinism; the first failing points listed under it, every one in a CSV file."""
    body = []
    failing: list[str] = []
    failing_rows: list[list[object]] = []
    for problem in V.problems(latest, order):
        scope = V.of_problem(latest, problem)
        failed = scope[~scope["passed"]]
        status = badge("pass", "pass") if failed.empty else badge(f"{len(failed)} failing", "fail")
        shapes = ", ".join(esc(shape_labels(scope)[s]) for s in V.ordered_shapes(scope))
        body.append([esc(V.problem_label(problem)), f"<small>{shapes}</small>",
                     f"{int(scope['passed'].sum())}/{len(scope)}", status, sci(scope["err_max_rel"].max()),
                     sci(scope["err_rel_l2"].max()), det_cell(scope)])
        for _, row in failed.iterrows():
            failing.append(f"<li>{esc(V.problem_label(problem))} · {esc(row['shape_label'])} · "
                           f"{esc(row['knobs_label'])}: {badge(str(row['status']))} {esc(row['detail'])}</li>")
            failing_rows.append([V.problem_label(problem), row["shape_label"], row["knobs_label"], row["status"],
                                 row["detail"]])
    out = table(["problem", "shapes", "rows passed", "status", "worst max rel. err", "worst rel. L2 err",
                 "run-to-run"], body, numeric=[2, 4, 5],
                caption_html="Newest row per parameter point and shape (verification and timing runs both "
                             "check results); errors against the float64 reference.")
    if failing:
        more = ""
        if len(failing) > FAILING_SHOWN:
            link = site.data_file(page, f"{r.name}-failing", ["problem", "shape", "point", "status", "detail"],
                                  failing_rows)
            more = f"<p>The first {FAILING_SHOWN} of {len(failing)}; all of them: {link}.</p>"
        out += ('<div class="epl-problems"><p>Failing points:</p><ul>' + "".join(failing[:FAILING_SHOWN]) + "</ul>"
                + more + "</div>")
    return f"<div>{out}</div>"


def _env_table(site: Site, page: Page, runs: list[str]) -> str:
    """The runs that measured it, a line each (when, where, which commit, its environment file: the
    device folder's one copy, which holds every field); then the fields all runs record alike, once.
    A table of every field of every run repeated each run's environment on every page it measured,
    up to 50 KB a page."""
    infos = [site.data.runs.get(run) for run in runs]
    flat = [flatten(i.env) if i else {} for i in infos]
    keys: list[str] = []
    for f in flat:
        keys.extend(k for k in f if k not in keys)
    if not keys:
        return '<div><p class="epl-empty">No environment record (<code>&lt;run&gt;.env.json</code>) found for these runs.</p></div>'
    recorded = [f for f in flat if f]
    alike = [k for k in keys if len({f[k] for f in recorded if k in f}) == 1]
    varying = [k for k in keys if k not in alike]
    rows = []
    for run, info, f in zip(runs, infos, flat):
        commit = f.get("git_commit", "")
        dirty = " (uncommitted tree)" if f.get("git_dirty", "").lower() == "true" else ""
        rows.append([f"<code>{esc(run)}</code>", esc(f.get("utc", "")[:19]) or dash(),
                     page.a(layout.device(info.device), info.device) if info else dash(),
                     (f"<code>{esc(commit[:12])}</code>{esc(dirty)}" if commit else dash()),
                     esc(board_of(f)) or dash(), _env_link(site, page, info)])
    out = table(["run", "UTC", "device", "commit", "board", "files"], rows, cls="epl-table epl-env",
                caption_html=("Fields that differ between these runs (each run's value is in its environment file): "
                              + ", ".join(f"<code>{esc(k)}</code>" for k in varying) + "." if varying else None))
    if alike:
        out += (f'<details class="epl-details"><summary>Alike in every run that records them ({len(alike)} '
                "fields)</summary>" + facts([(k, esc(size_field(k, next(f[k] for f in recorded if k in f)))) for k in alike])
                + "</details>")
    return f"<div>{out}</div>"


def _env_link(site: Site, page: Page, info: Any) -> str:
    """Links to a run's files (its Parquet rows, its environment): the device folder's one copy."""
    if info is None:
        return dash()
    return site.run_links(page, info.device, info.run, info.path, info.path.with_name(f"{info.run}.env.json"))


def _pages(site: Site) -> Iterator[Page]:
    realizations = site.cat.realizations
    for i, r in enumerate(realizations.values()):
        if i % 10 == 0:
            site.say(f"realization pages {i + 1}-{min(i + 10, len(realizations))} of {len(realizations)}")
        yield write_realization(site, r)


KIND = PageKind("realization", _pages, paths=lambda site: record_paths(site, "realization", site.cat.realizations))


__all__ = ["KIND", "write_realization"]
