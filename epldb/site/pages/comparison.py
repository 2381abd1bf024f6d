"""The comparison of a subject's realizations, shared by primitive and operator pages: a table of
static resources, measured bandwidth and freshness, then a chart per device and problem across
shapes against the peers and the ceiling."""

from __future__ import annotations

from typing import TYPE_CHECKING

from epldb.records import Operator, Primitive, Realization
from epldb.site import static
from epldb.site import views as V
from epldb.site.charts import Chart, Series
from epldb.site.escape import html as esc
from epldb.site.html import Page, badge, dash, table
from epldb.site.pages.common import (NO_EVIDENCE, best_by_shape, det_cell, err_cell, fresh_cell, gbps_pct,
                                     shape_labels)
from epldb.site.pages.site import Site
from epldb.site.uses import stage_kernels

if TYPE_CHECKING:
    import pandas as pd


# The chart legend of each ceiling's size-matched reference (epldb/bench.py: AT_SIZE).
AT_SIZE_LABELS = {"read": "read kernel at this size", "copy": "copy at this size"}


def realizations_compared(site: Site, page: Page, subject: Primitive | Operator, kind: str, none_yet: str) -> None:
    """The comparison table of a subject's realizations (a primitive's, or an operator's composed
    ones), then the charts across shapes; the same on primitive and operator pages."""
    realizations = site.cat.realizations_of(subject.id)
    rows = site.rows_of_primitive(subject.id)  # evidence rows by subject: the realization id's first part
    through = stage_kernels(site.cat, subject) if isinstance(subject, Operator) else []
    if through:  # no kernel of its own: its stages' kernels that compute it whole, with their evidence
        realizations = through
        rows = _rows_of_kernels(site, through, str(subject.contract))
        page.para("No realization files under this operator: its kernels are realizations of its stages' "
                  f"primitives measured under its contract, <code>{esc(str(subject.contract))}</code> "
                  "(each computes the whole operator as the contract defines it).")
    if not realizations:
        page.para(none_yet, "epl-empty")
    else:
        page.raw(_comparison_table(site, page, subject, realizations, rows, kind))
    page.heading(2, "Across shapes")
    if rows is not None:
        latest = V.latest(rows)
        if latest.empty:
            latest = V.latest(rows, fresh_only=False)
        page.para("Each realization at its best parameter point per shape (passing rows only), the peers "
                  "measured in the same runs, and the device's bandwidth ceiling; open markers: timed "
                  "but failing verification. Bandwidth is the contract's minimal bytes moved divided by the "
                  "median time; the axis spans the measured band. Below each chart, the fastest "
                  "realization's speedup over each peer at each shape.")
        _charts(site, page, latest, subject.id, site.order(subject.id))
    else:
        page.para(f"{NO_EVIDENCE}: no realization of this {kind} has been measured on a GPU "
                  "(<code>epldb bench</code> on a GPU machine writes the evidence).", "epl-empty")


def _rows_of_kernels(site: Site, kernels: list[Realization], contract: str) -> "pd.DataFrame | None":
    """The evidence of ``kernels`` and of the contract's peers and ceilings in the same runs."""
    ev = site.ev
    if ev is None:
        return None
    ids = {r.id for r in kernels}
    own = ev["subject"].isin(ids) & (ev["kind"] == "realization")
    runs = set(ev[own]["run"])
    beside = ev["run"].isin(runs) & (((ev["kind"] == "peer") & ev["subject"].str.startswith(f"{contract}/"))
                                     | (ev["kind"] == "ceiling"))
    rows = ev[own | beside]
    return rows if not rows.empty else None


def _comparison_table(site: Site, page: Page, p: Primitive | Operator, realizations: list[Realization],
                      rows: "pd.DataFrame | None", kind: str = "primitive") -> str:
    targets = sorted({t for r in realizations for t in r.targets})
    header = ["realization", "status", "static: registers · smem · spills"]
    measured_caption = ""
    ref_shapes: list[str] = []
    best = None
    latest = None
    if rows is not None:
        latest = V.latest(rows)
        timed = latest[latest["timed"] & (latest["kind"] == "realization")]
        if not latest.empty:
            pool = timed if not timed.empty else latest[latest["kind"] == "realization"]
            device = pool["device"].value_counts().index[0] if not pool.empty else latest["device"].iloc[0]
            problem = V.problems(pool[pool["device"] == device] if not pool.empty else latest, site.order(p.id))[0]
            scope = V.of_problem(latest[latest["device"] == device], problem)
            best = V.best_per_shape(scope)
            ref_shapes = V.reference_shapes(scope[(scope["kind"] == "realization") & scope["timed"]])
            labels = shape_labels(scope)
            header += [f"GB/s (% ceiling) at {labels[s]}" for s in ref_shapes]
            measured_caption = (f"Measured on {site.device_link(page, device)}, "
                                f"{esc(V.problem_label(problem))}, best parameter point per shape; "
                                "the % is of the device's bandwidth ceiling measured in the same run.")
            latest = scope
    header += ["max rel. error", "run-to-run", "freshness"]
    body = []
    for r in realizations:
        builds = site.builds_of(r)
        cells = [site.link(page, "realization", r.id),
                 f"{badge(r.status)}<br><small>declared {esc(r.determinism)}</small>"]
        lines = []
        for t in targets:
            if t not in r.targets:
                continue
            s = static.summarize(t, builds.get(t))
            lines.append(f'<span class="epl-nowrap-plain"><code>{esc(t)}</code> ' +
                         (s.line_html() if s else f'<span class="epl-none">{esc(static.why_missing(builds.get(t)))}</span>')
                         + "</span>")
        cells.append("<br>".join(lines))
        own = latest[latest["subject"] == r.id] if latest is not None else None
        if best is not None:
            at = best_by_shape(best, r.id)
            cells += [gbps_pct(at.get(s)) for s in ref_shapes]
        all_own = site.rows_of_realization(r.id)
        if own is None or own.empty:
            note = NO_EVIDENCE if all_own is None else "stale only"
            cells += [f'<span class="epl-none">{note}</span>', dash(), fresh_cell(all_own)]
        else:
            cells += [err_cell(own), det_cell(own), fresh_cell(all_own)]
        body.append(cells)
    if best is not None and latest is not None:  # both are set together, from the same rows
        for peer in sorted(set(best[best["kind"] == "peer"]["subject"])):
            own = latest[latest["subject"] == peer]
            label = str(own["subject_label"].iloc[0]) if not own.empty else peer
            cells = [f"<em>{esc(label)}</em> <small>(peer)</small>", dash(), dash()]
            at = best_by_shape(best, peer)
            cells += [gbps_pct(at.get(s)) for s in ref_shapes]
            cells += [err_cell(own), det_cell(own), fresh_cell(own)]
            body.append(cells)
    caption = measured_caption or (f"{NO_EVIDENCE} for this {kind}: the measured columns appear once "
                                   "<code>epldb bench</code> has run on a GPU.")
    static_note = "Static columns: registers, static shared memory and spills over every parameter point."
    return table(header, body, cls="epl-table epl-comparison",
                 caption_html=f"{caption} {static_note}")


def _charts(site: Site, page: Page, latest: "pd.DataFrame", subject: str, order: dict[str, list[object]]) -> None:
    """One comparison chart per device and problem that has timed rows."""
    timed = latest[latest["timed"]]
    if timed.empty:
        page.para("Verified, but not timed yet: <code>epldb bench</code> on a GPU writes the timing rows.",
                  "epl-empty")
        return
    for device in sorted(set(timed["device"])):
        for problem in V.problems(timed[timed["device"] == device], order):
            title = f"{subject} on {device}: {V.problem_label(problem)}"
            page.raw(_comparison_chart(site, page, latest, device, problem, title,
                                       f"{subject}-{device}-{'-'.join(problem)}"))


def _comparison_chart(site: Site, page: Page, rows: "pd.DataFrame", device: str, problem: tuple[str, str],
                      title: str, stem: str, subjects: dict[str, str] | None = None) -> str:
    """All realizations (best point per shape) and peers across shapes, with the ceiling; then the
    best realization's speedup over each peer at each shape."""
    pr = V.of_problem(rows[rows["device"] == device], problem)
    best = V.best_per_shape(pr)
    shapes = V.ordered_shapes(pr[pr["timed"]])
    labels = shape_labels(pr)
    series: list[Series] = []
    for kind in ("realization", "peer"):
        for subject in sorted(set(best[best["kind"] == kind]["subject"])):
            b = best[best["subject"] == subject]
            label = _series_label(b, kind, subject, subjects)
            peer = subject.split("/", 1)[-1] if kind == "peer" else ""
            colour = site.colour_of(str(b["primitive"].iloc[0]), kind, subject) if kind == "realization" else None
            series.append(Series(label, kind, {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])}, colour,
                                 peer=peer))
    # A realization timed but failing the contract at every shape would vanish from the chart: it is
    # drawn hollow, its fastest timed point per shape, so the table's "incorrect" has its picture.
    timed = pr[(pr["kind"] == "realization") & pr["timed"] & pr["gbps"].notna()]
    for subject in sorted(set(timed["subject"]) - set(best["subject"])):
        b = timed[timed["subject"] == subject].sort_values("gbps", kind="stable").drop_duplicates("shape", keep="last")
        label = _series_label(b, "realization", subject, subjects) + " (fails verification)"
        series.append(Series(label, "realization", {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])},
                             site.colour_of(str(b["primitive"].iloc[0]), "realization", subject), hollow=True))
    ceilings = V.Ceilings(rows)
    ceiling = {labels[s]: c for s in shapes if (c := ceilings.at(device, problem[0], s)) is not None}
    # The size-matched reference of the ceiling the contract is judged by: a read kernel is no
    # reference for a read-and-write contract, nor a copy for a reduction.
    judged_by = next((n for c in ceiling.values() if (n := site.ceiling_name(device, c)) in ("read", "copy")), None)
    refs = site.size_references(device, judged_by) if judged_by is not None else None
    reference = ({labels[s]: r for s in shapes if (r := V.at_size_of(pr, refs, device, s)) is not None}
                 if refs is not None else {})
    chart = Chart(title=title, shapes=[labels[s] for s in shapes], series=series, ceiling=ceiling,
                  ceiling_label=site.ceiling_label(device, ceiling), reference=reference,
                  reference_label=AT_SIZE_LABELS.get(judged_by or "read", ""), from_zero=False)
    out = site.chart(page, stem, chart)
    speedup = speedup_chart(chart, f"{title}: speedup of the best realization over each peer")
    if speedup is not None:
        out += site.chart(page, f"{stem}-speedup", speedup)
    return out


def _series_label(b: "pd.DataFrame", kind: str, subject: str, subjects: dict[str, str] | None) -> str:
    own = str(b["subject_label"].iloc[0])
    if kind == "realization" and "/" in own:
        own = own.split("/", 1)[1]  # the chart is of one primitive: its realizations' names suffice
    return (subjects or {}).get(subject, own)


def speedup_chart(chart: Chart, title: str) -> Chart | None:
    """Per shape, the fastest passing realization's GB/s over each peer's (above 1: ahead of it),
    from the series of a comparison chart; None without a realization and a peer at one shape."""
    fastest: dict[str, float] = {}
    for s in chart.series:
        if s.kind == "realization" and not s.hollow:
            for x, v in s.values.items():
                fastest[x] = max(fastest.get(x, 0.0), v)
    series = [Series(s.label, "peer", {x: fastest[x] / v for x, v in s.values.items() if x in fastest and v > 0},
                     s.colour, peer=s.peer)
              for s in chart.series if s.kind == "peer"]
    series = [s for s in series if s.values]
    if not series:
        return None
    return Chart(title=title, shapes=chart.shapes, series=series, level=1.0, level_label="level with the peer (1x)",
                 ylabel="speedup: best realization GB/s / peer GB/s", value_name="speedup", from_zero=False)


__all__ = ["realizations_compared", "speedup_chart"]
