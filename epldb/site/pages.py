"""The generated pages: one per feature, family, primitive, realization, operator and device, the
evidence status, the home page's generated part, and the navigation.

Each ``write_*`` function builds one ``Page`` from ``SiteData`` and returns it; ``generate_pages``
runs them all and writes the files. Nothing here touches MkDocs: the output is plain Markdown with
raw HTML blocks, fenced code and a nav YAML, so the rendering engine can change.
"""

from __future__ import annotations

import csv
import io
import posixpath
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from epldb.leads import Leads, short_commit
from epldb.records import Feature, Operator, Primitive, Realization
from epldb.site import experiments as experiment_pages
from epldb.site import history, layout, static
from epldb.site import views as V
from epldb.site.charts import Chart, Series, write_chart
from epldb.site.data import SiteData
from epldb.site.escape import html as esc
from epldb.site.escape import prose, prose_inline
from epldb.site.html import Page, badge, check, dash, gbps, ms, pct, sci, table

if TYPE_CHECKING:
    import pandas as pd

FAMILY_TITLES = {
    "reduction": "Reduction",
    "streaming": "Streaming",
    "tile-staging": "Tile staging",
    "rematerialization": "Rematerialization",
    "fusion": "Fusion and boundary handling",
}
FAMILY_ORDER = list(FAMILY_TITLES)
NO_EVIDENCE = "No evidence yet"
MAX_ROWS_SHOWN = 60  # evidence rows listed on a realization page; the run files hold them all
POINTS_SHOWN = 24  # parameter points listed at the largest shape; a CSV beside the page holds them all
# The chart legend of each ceiling's size-matched reference (epldb/bench.py: AT_SIZE).
AT_SIZE_LABELS = {"read": "read kernel at this size", "copy": "copy at this size"}


@dataclass
class Output:
    """Everything one generation writes: pages by path (relative to site_src) and other files."""

    pages: dict[str, Page] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)  # charts, CSV copies, nav, snippets
    charts: list[str] = field(default_factory=list)

    def add(self, page: Page) -> Page:
        self.pages[page.path] = page
        return page


class Site:
    """Paths and shared lookups for one generation."""

    def __init__(self, data: SiteData) -> None:
        self.data = data
        self.cat = data.catalog
        self.out = Output()
        self.pending_charts: list[tuple[Chart, str, str]] = []
        self._rows_r: dict[str, Any] = {}  # evidence rows by realization / primitive, filtered once
        self._rows_p: dict[str, Any] = {}
        self._peers: dict[str, list[str]] = {}
        self._ceilings: dict[str, list[tuple[str, float]]] = {}
        self._references: dict[tuple[str, str], Any] = {}

    # --- where records live ----------------------------------------------------------------

    def family_of(self, primitive_id: str) -> str:
        p = self.cat.primitives.get(primitive_id)
        return p.family if p else layout.UNFILED

    def families(self) -> list[str]:
        present = {p.family for p in self.cat.primitives.values()}
        if self.orphans():
            present.add(layout.UNFILED)
        return [f for f in FAMILY_ORDER if f in present] + sorted(present - set(FAMILY_ORDER))

    def orphans(self) -> list[Realization]:
        """Realizations whose primitive or operator is not in the catalog: filed under 'unfiled'."""
        return [r for r in self.cat.realizations.values() if self.cat.subject_of(r) is None]

    def family_title(self, name: str) -> str:
        return FAMILY_TITLES.get(name, "Unfiled" if name == layout.UNFILED else name.replace("-", " ").capitalize())

    def page_of(self, record: Any) -> str:
        if isinstance(record, Feature):
            return layout.feature(record.id)
        if isinstance(record, Primitive):
            return layout.primitive(record.family, record.id)
        if isinstance(record, Realization):
            if isinstance(self.cat.subject_of(record), Operator):
                return layout.operator_realization(record.subject, record.name)
            return layout.realization(self.family_of(record.subject), record.subject, record.name)
        if isinstance(record, Operator):
            return layout.operator(record.id)
        raise TypeError(type(record))

    def link(self, page: Page, kind: str, record_id: str) -> str:
        """A link to a record by id, or the id as plain text marked missing when it does not resolve."""
        mapping = {"feature": self.cat.features, "primitive": self.cat.primitives,
                   "realization": self.cat.realizations, "operator": self.cat.operators}[kind]
        record = mapping.get(record_id)
        if record is None:
            return f'<span class="epl-missing" title="not in the catalog">{esc(record_id)}</span>'
        return page.a(self.page_of(record), record.title)

    def link_id(self, page: Page, kind: str, record_id: str) -> str:
        """Like ``link`` but shows the id (for dense tables)."""
        mapping = {"feature": self.cat.features, "primitive": self.cat.primitives,
                   "realization": self.cat.realizations, "operator": self.cat.operators}[kind]
        record = mapping.get(record_id)
        if record is None:
            return f'<span class="epl-missing" title="not in the catalog">{esc(record_id)}</span>'
        return f'<a href="{esc(page.href(self.page_of(record)))}"><code>{esc(record_id)}</code></a>'

    def device_link(self, page: Page, device: str) -> str:
        return page.a(layout.device(device), device)

    # --- evidence lookups --------------------------------------------------------------------

    @property
    def ev(self) -> "pd.DataFrame | None":
        return self.data.evidence if self.data.has_evidence() else None

    def rows_of_realization(self, rid: str) -> "pd.DataFrame | None":
        if rid not in self._rows_r:
            ev = self.ev
            rows = ev[(ev["kind"] == "realization") & (ev["subject"] == rid)] if ev is not None else None
            self._rows_r[rid] = rows if rows is not None and not rows.empty else None
        return self._rows_r[rid]

    def rows_of_primitive(self, pid: str) -> "pd.DataFrame | None":
        if pid not in self._rows_p:
            ev = self.ev
            rows = ev[ev["primitive"] == pid] if ev is not None else None
            self._rows_p[pid] = rows if rows is not None and not rows.empty else None
        return self._rows_p[pid]

    @cached_property
    def leads(self) -> Leads | None:
        """Each realization's latest runs (epldb.leads), over every run of the evidence."""
        if self.ev is None:
            return None
        commits = {run: short_commit(info.env.get("git_commit")) for run, info in self.data.runs.items()}
        return Leads(self.cat, self.ev, commits)

    def colour_of(self, primitive_id: str, kind: str, label: str) -> int | None:
        """A fixed palette slot per realization (catalog order) and per peer (sorted), so a series
        keeps its colour on every chart of the primitive."""
        if kind == "realization":
            ids = [r.id for r in self.cat.realizations_of(primitive_id)]
            return ids.index(label) if label in ids else None
        if primitive_id not in self._peers:
            rows = self.rows_of_primitive(primitive_id)
            self._peers[primitive_id] = sorted(set(rows[rows["kind"] == "peer"]["subject_label"])) if rows is not None else []
        peers = self._peers[primitive_id]
        return peers.index(label) if label in peers else None

    def size_references(self, device: str, ceiling: str) -> "pd.DataFrame | None":
        """V.size_references of the evidence, once per device and ceiling (a scan of every row)."""
        key = (device, ceiling)
        if key not in self._references:
            self._references[key] = V.size_references(self.ev, device, ceiling) if self.ev is not None else None
        return self._references[key]

    def named_ceilings(self, device: str) -> list[tuple[str, float]]:
        """V.named_ceilings of the evidence, once per device (a scan of every row)."""
        if device not in self._ceilings:
            self._ceilings[device] = V.named_ceilings(self.ev, device) if self.ev is not None else []
        return self._ceilings[device]

    def ceiling_name(self, device: str, value: float) -> str:
        return V.ceiling_name(self.named_ceilings(device), value)

    def ceiling_label(self, device: str, values: dict[str, float]) -> str:
        names = {self.ceiling_name(device, v) for v in values.values()}
        names.discard("")
        return f"ceiling ({', '.join(sorted(names))})" if names else "ceiling"

    def order(self, primitive_id: str) -> dict[str, list[object]]:
        """Parameter values in declaration order over the primitive's realizations (main problem first)."""
        return V.param_order(self.cat.realizations_of(primitive_id))

    def builds_of(self, r: Realization) -> dict[str, Any]:
        return {t: self.data.build(r.id, t) for t in r.targets}

    def data_file(self, page: Page, stem: str, header: list[str], rows: list[list[object]]) -> str:
        """Write a table as ``data/<stem>.csv`` beside ``page``; return a link to it. Long tables go
        there instead of into the page: every row stays one click away, and the page stays light."""
        path = posixpath.join(posixpath.dirname(page.path), "data", f"{layout.slug(stem)}.csv")
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        self.out.files[path] = buf.getvalue().encode("utf-8")
        return f'<a href="{esc(layout.rel(page.path, path))}">{esc(posixpath.basename(path))}</a>'

    # --- charts ------------------------------------------------------------------------------

    def chart(self, page: Page, stem: str, chart: Chart) -> str:
        """Write ``chart`` beside ``page`` (charts/<stem>.svg + .csv); return the figure's HTML."""
        base = posixpath.dirname(page.path)
        svg = posixpath.join(base, "charts", f"{layout.slug(stem)}.svg")
        csv_path = svg[: -len(".svg")] + ".csv"
        if svg in self.out.charts:
            raise ValueError(f"two charts would be written to {svg}")
        self.out.charts.append(svg)
        self.pending_charts.append((chart, svg, csv_path))
        alt = f"Chart: {chart.title}"
        return (f'<div class="epl-figure"><figure><img src="{esc(layout.rel(page.path, svg))}" alt="{esc(alt)}" '
                f'class="epl-chart"><figcaption>{esc(chart.title)} · '
                f'<a href="{esc(layout.rel(page.path, csv_path))}">data (CSV)</a></figcaption></figure></div>')


# --- formatting of evidence rows --------------------------------------------------------------


def _fresh_cell(rows: "pd.DataFrame") -> str:
    if rows is None or rows.empty:
        return dash()
    fresh = rows[rows["fresh"]]
    if fresh.empty:  # the machine code changed since: a GPU run has to measure it again
        return badge("stale: re-measure pending", "stale")
    when = str(fresh["utc"].iloc[-1])[:10] or str(fresh["run"].iloc[-1])
    return badge("fresh", "fresh") + f" <small>{esc(when)}</small>"


def _det_cell(rows: "pd.DataFrame") -> str:
    if rows is None or rows.empty or "deterministic" not in rows:
        return dash()
    vals = [v for v in rows["deterministic"] if v is not None and str(v) not in ("", "nan", "None")]
    if not vals:
        return dash()
    truthy = [str(v).strip().lower() in ("true", "1", "yes", "bitwise") for v in vals]
    return badge("bitwise", "pass") if all(truthy) else badge("varies", "warn")


def _err_cell(rows: "pd.DataFrame") -> str:
    if rows is None or rows.empty:
        return dash()
    return sci(rows["err_max_rel"].max())


def _gbps_pct(row: "pd.Series | None") -> str:
    if row is None:
        return dash()
    return f"{gbps(row['gbps'])} <small>{pct(row['frac_ceiling'])}</small>"


def _best_by_shape(best: "pd.DataFrame", subject: str) -> dict[str, "pd.Series"]:
    """Shape → the row of ``subject`` with the highest GB/s there (the first of equals)."""
    own = best[best["subject"] == subject]
    top: dict[str, tuple[float, int]] = {}
    for i, (shape, g) in enumerate(zip(own["shape"], own["gbps"])):
        if shape not in top or g > top[shape][0]:
            top[shape] = (g, i)
    return {shape: own.iloc[i] for shape, (_, i) in top.items()}


def _shape_labels(rows: "pd.DataFrame") -> dict[str, str]:
    return dict(zip(rows["shape"], rows["shape_label"]))


def _comparison_chart(site: Site, page: Page, rows: "pd.DataFrame", device: str, problem: tuple[str, str],
                      title: str, stem: str, subjects: dict[str, str] | None = None) -> str:
    """All realizations (best point per shape) and peers across shapes, with the ceiling."""
    pr = V.of_problem(rows[rows["device"] == device], problem)
    best = V.best_per_shape(pr)
    shapes = V.ordered_shapes(pr[pr["timed"]])
    labels = _shape_labels(pr)
    series: list[Series] = []
    for kind in ("realization", "peer"):
        for subject in sorted(set(best[best["kind"] == kind]["subject"])):
            b = best[best["subject"] == subject]
            own = str(b["subject_label"].iloc[0])
            if kind == "realization" and "/" in own:
                own = own.split("/", 1)[1]  # the chart is of one primitive: its realizations' names suffice
            label = (subjects or {}).get(subject, own)
            colour = site.colour_of(str(b["primitive"].iloc[0]), kind, subject if kind == "realization" else label)
            series.append(Series(label, kind, {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])}, colour))
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
                  reference_label=AT_SIZE_LABELS.get(judged_by or "read", ""))
    return site.chart(page, stem, chart)


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


# --- feature pages ----------------------------------------------------------------------------


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
             esc(p.scope), str(len(cat.realizations_of(p.id))), prose_inline(_first_sentence(p.summary))]
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
    _record_footer(page, f)
    return page


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    cut = flat.find(". ")
    if 0 <= cut <= 220:
        return flat[: cut + 1]
    return flat if len(flat) <= 220 else flat[:200].rsplit(" ", 1)[0] + " …"


def _record_footer(page: Page, record: Any) -> None:
    page.raw(f'<div class="epl-source"><p>Record: <code>{esc(record.file)}</code> · id '
             f"<code>{esc(record.id)}</code></p></div>")


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


# --- families and primitives ------------------------------------------------------------------


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
        rows.append([site.link(page, "primitive", p.id), esc(p.scope),
                     f"{len(rs)} <small>({verified} verified)</small>" if rs else dash(),
                     best, prose_inline(_first_sentence(p.summary))])
    return table(["primitive", "scope", "realizations", "best measured", "summary"], rows)


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
                hide_toc=True)
    page.raw(f'<div class="epl-prose">{prose(p.summary)}</div>')
    facts = [
        ("family", page.a(layout.family(p.family), fam_title)),
        ("scope", f"<code>{esc(p.scope)}</code> (the widest set of threads that cooperate)"),
        ("features exploited", ", ".join(site.link(page, "feature", f) for f in p.features)),
        ("properties relied on", ", ".join(f"<code>{esc(x)}</code>" for x in p.properties)),
        ("measurement contract", f"<code>{esc(p.contract)}</code>" if p.contract else "none yet"),
        ("operators", ", ".join(site.link(page, "operator", o) for o in p.operators) or dash()),
    ]
    if p.also_in:
        facts.append(("also in", "; ".join(esc(x) for x in p.also_in)))
    page.raw(_facts(facts))

    page.heading(2, "Realizations compared")
    _realizations_compared(site, page, p, "primitive",
                           "No realization of this primitive exists yet. Add one with "
                           f"<code>epldb new realization {esc(p.id)} NAME</code> "
                           f"({page.a(layout.CONTRIBUTING, 'how')}).")

    page.heading(2, "Costs traded")
    page.raw(table(["cost", "how this primitive spends or saves it"],
                   [[f'<span class="epl-nowrap">{esc(c.factor)}</span>', prose_inline(c.note)] for c in p.costs]))
    if p.notes:
        page.heading(2, "Notes")
        page.raw(f'<div class="epl-prose">{prose(p.notes)}</div>')
    experiment_pages.section(site, page, p)
    _record_footer(page, p)
    return page


def _realizations_compared(site: Site, page: Page, subject: Primitive | Operator, kind: str, none_yet: str) -> None:
    """The comparison table of a subject's realizations (a primitive's, or an operator's composed
    ones), then the charts across shapes; the same on primitive and operator pages."""
    realizations = site.cat.realizations_of(subject.id)
    rows = site.rows_of_primitive(subject.id)  # evidence rows by subject: the realization id's first part
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
                  "measured in the same runs, and the device's bandwidth ceiling. Bandwidth is the "
                  "contract's minimal bytes moved divided by the median time.")
        _charts(site, page, latest, subject.id, site.order(subject.id))
    else:
        page.para(f"{NO_EVIDENCE}: no realization of this {kind} has been measured on a GPU "
                  "(<code>epldb bench</code> on a GPU machine writes the evidence).", "epl-empty")


def _facts(pairs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f'<div class="epl-facts"><table class="epl-facts-table"><tbody>{rows}</tbody></table></div>'


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
            labels = _shape_labels(scope)
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
            at = _best_by_shape(best, r.id)
            cells += [_gbps_pct(at.get(s)) for s in ref_shapes]
        all_own = site.rows_of_realization(r.id)
        if own is None or own.empty:
            note = NO_EVIDENCE if all_own is None else "stale only"
            cells += [f'<span class="epl-none">{note}</span>', dash(), _fresh_cell(all_own)]
        else:
            cells += [_err_cell(own), _det_cell(own), _fresh_cell(all_own)]
        body.append(cells)
    if best is not None:
        for peer in sorted(set(best[best["kind"] == "peer"]["subject"])):
            own = latest[latest["subject"] == peer]
            label = str(own["subject_label"].iloc[0]) if not own.empty else peer
            cells = [f"<em>{esc(label)}</em> <small>(peer)</small>", dash(), dash()]
            at = _best_by_shape(best, peer)
            cells += [_gbps_pct(at.get(s)) for s in ref_shapes]
            cells += [_err_cell(own), _det_cell(own), _fresh_cell(own)]
            body.append(cells)
    caption = measured_caption or (f"{NO_EVIDENCE} for this {kind}: the measured columns appear once "
                                   "<code>epldb bench</code> has run on a GPU.")
    static_note = "Static columns: registers, static shared memory and spills over every parameter point."
    return table(header, body, cls="epl-table epl-comparison",
                 caption_html=f"{caption} {static_note}")


# --- realization pages ------------------------------------------------------------------------


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
    page = Page(site.page_of(r), r.title, crumbs=crumbs)
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
                   caption_html=f"{n_points} parameter point{'s' if n_points != 1 else ''} (the cross product); "
                                "every one is built for every target."))

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
    if r.notes:
        page.heading(2, "Notes")
        page.raw(f'<div class="epl-prose">{prose(r.notes)}</div>')
    experiment_pages.section(site, page, r)
    _record_footer(page, r)
    return page


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
                  f"a line per shape (up to {history.MAX_SHAPES} of the newest run's sweep), each point its best "
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
        if s.get("unaligned_entry"):
            when = f" or <code>{esc(s['unaligned_when'])}</code> &ne; 0" if "unaligned_when" in s else ""
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
    root = site.cat.root
    path = root / r.kernel_path
    page.raw("<div><p>Entry points: " + ", ".join(
        f"<code>{esc(e.name)}</code> = <code>{esc(e.expression)}</code>" for e in r.kernel.entries) + "</p></div>")
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        page.para(f"The kernel source <code>{esc(r.kernel_path)}</code> cannot be read: {esc(exc)}", "epl-empty")
        return
    page.code(source, "cuda", title=str(r.kernel_path), linenums=True)
    include = root / "kernels" / "include"
    direct = _local_includes(include, source, path.parent, deep=False)
    everything = _local_includes(include, source, path.parent)
    if direct:
        page.para("The building blocks it includes directly, from <code>kernels/include/</code> (the codegen basis):")
        for rel_name, text in direct:
            page.collapsible_code(f"kernels/include/{rel_name}", text, "cuda")
    deeper = [name for name, _ in everything if name not in {n for n, _ in direct}]
    if deeper:
        page.raw("<div><p>And through them: " + ", ".join(
            f'<a href="{esc(page.href(layout.BASIS))}#{esc(basis_anchor(name))}"><code>{esc(name)}</code></a>'
            for name in deeper) + ".</p></div>")


def basis_anchor(rel_name: str) -> str:
    """The anchor of a header's source on the basis page."""
    return "src-" + layout.slug(rel_name)


def _local_includes(include_dir: Path, source: str, here: Path, seen: set[str] | None = None, *,
                    deep: bool = True) -> list[tuple[str, str]]:
    """Headers under ``include_dir`` reachable from ``source`` by #include (only its own #includes
    unless ``deep``), depth first, each once."""
    import re

    seen = set() if seen is None else seen
    out: list[tuple[str, str]] = []
    for m in re.finditer(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', source, re.M):
        name = m.group(1)
        for candidate in (include_dir / name, here / name):
            try:
                resolved = candidate.resolve()
                rel_name = resolved.relative_to(include_dir.resolve()).as_posix()
            except (ValueError, OSError):
                continue
            if not resolved.is_file():
                continue
            if rel_name in seen:
                break
            seen.add(rel_name)
            text = resolved.read_text(encoding="utf-8", errors="replace")
            out.append((rel_name, text))
            if deep:
                out.extend(_local_includes(include_dir, text, resolved.parent, seen))
            break
    return out


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
    page.raw(_verification_table(latest, order))

    timed = latest[latest["timed"]]
    page.heading(3, "Timing")
    if timed.empty:
        page.para("Not timed yet: <code>epldb bench</code> on a GPU writes the timing rows.", "epl-empty")
    for device in sorted(set(timed["device"])):
        for problem in V.problems(timed[timed["device"] == device], order):
            scope = V.of_problem(timed[timed["device"] == device], problem)
            shapes = V.ordered_shapes(scope)
            labels = _shape_labels(scope)
            # One line per parameter point (the six best at the largest shape), the peers, the ceiling.
            ok = scope[scope["passed"]]
            largest = shapes[-1]
            ranked = ok[ok["shape"] == largest].sort_values("gbps", ascending=False, kind="stable")["knobs_label"].tolist()
            keep = list(dict.fromkeys(ranked))[:6] or list(dict.fromkeys(ok["knobs_label"]))[:6]
            series = [Series(label or "(default)", "realization",
                             {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])})
                      for label in keep for b in [ok[ok["knobs_label"] == label]]]
            peers = V.of_problem(V.latest(context, fresh_only=not stale_only), problem)
            peers = V.best_per_shape(peers[(peers["kind"] == "peer") & (peers["device"] == device)])
            for subject in sorted(set(peers["subject"])):
                b = peers[(peers["subject"] == subject) & peers["shape"].isin(shapes)]
                if not b.empty:
                    plabel = str(b["subject_label"].iloc[0])
                    series.append(Series(plabel, "peer", {labels[s]: float(g) for s, g in zip(b["shape"], b["gbps"])},
                                         site.colour_of(r.subject, "peer", plabel)))
            ceiling = {labels[s]: c for s in shapes if (c := ceilings.at(device, problem[0], s))}
            label = V.problem_label(problem) or "all"
            title = f"{r.id} on {device}: {label}" + (" (stale)" if stale_only else "")
            page.heading(4, f"{device}: {label}")
            page.raw(site.chart(page, f"{r.name}-{device}-{'-'.join(problem)}",
                                Chart(title=title, shapes=[labels[s] for s in shapes], series=series, ceiling=ceiling,
                                      ceiling_label=site.ceiling_label(device, ceiling))))
            best_at = _best_by_shape(V.best_per_shape(scope), r.id)
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
    shown = rows.iloc[::-1].head(MAX_ROWS_SHOWN)  # newest first
    all_rows = [[page.a(layout.device(d), d), esc(run), esc(str(utc)[:19]), esc(t), esc(dt), esc(sl), esc(pl),
                 badge(str(st)), sci(e1), sci(e2), esc(det), ms(m), gbps(g), pct(fc),
                 badge("stale", "stale") if stale else badge("fresh", "fresh")]
                for d, run, utc, t, dt, sl, pl, st, e1, e2, det, m, g, fc, stale in zip(
                    shown["device"], shown["run"], shown["utc"], shown["target"], shown["dtype"], shown["shape_label"],
                    shown["params_label"], shown["status"], shown["err_max_rel"], shown["err_rel_l2"],
                    shown["deterministic"], shown["time_ms_median"], shown["gbps"], shown["frac_ceiling"], shown["stale"])]
    more = len(rows) - len(shown)
    caption = (f"The newest {len(shown)} of {len(rows)} rows; every row is in the runs' CSV files, linked from "
               "the device pages." if more else "Newest first.")
    page.raw(f'<details class="epl-details"><summary>Every row ({len(rows)})</summary>'
             + table(["device", "run", "UTC", "target", "dtype", "shape", "params", "status", "max rel. err",
                      "rel. L2 err", "det.", "median ms", "GB/s", "% ceiling", "freshness"], all_rows,
                     numeric=[8, 9, 11, 12, 13], caption_html=esc(caption)) + "</details>")
    page.heading(3, "Environment of each run")
    page.raw(_env_table(site, page, sorted(set(rows["run"]), key=lambda x: (site.data.runs[x].utc if x in site.data.runs else "", x))))


def _verification_table(latest: "pd.DataFrame", order: dict[str, list[object]]) -> str:
    """One line per problem: shapes checked, parameter points × shapes passed, worst errors,
    determinism; the failing points listed under it."""
    body = []
    failing: list[str] = []
    for problem in V.problems(latest, order):
        scope = V.of_problem(latest, problem)
        failed = scope[~scope["passed"]]
        status = badge("pass", "pass") if failed.empty else badge(f"{len(failed)} failing", "fail")
        shapes = ", ".join(esc(_shape_labels(scope)[s]) for s in V.ordered_shapes(scope))
        body.append([esc(V.problem_label(problem)), f"<small>{shapes}</small>",
                     f"{int(scope['passed'].sum())}/{len(scope)}", status, sci(scope["err_max_rel"].max()),
                     sci(scope["err_rel_l2"].max()), _det_cell(scope)])
        for _, row in failed.iterrows():
            failing.append(f"<li>{esc(V.problem_label(problem))} · {esc(row['shape_label'])} · "
                           f"{esc(row['knobs_label'])}: {badge(str(row['status']))} {esc(row['detail'])}</li>")
    out = table(["problem", "shapes", "rows passed", "status", "worst max rel. err", "worst rel. L2 err",
                 "run-to-run"], body, numeric=[2, 4, 5],
                caption_html="Newest row per parameter point and shape (verification and timing runs both "
                             "check results); errors against the float64 reference.")
    if failing:
        out += '<div class="epl-problems"><p>Failing points:</p><ul>' + "".join(failing[:100]) + "</ul></div>"
    return f"<div>{out}</div>"


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in d.items():
        key = k if prefix and k.startswith(prefix) else f"{prefix}{k}"  # 'clocks' → 'clocks.sm', not 'clocks.clocks.sm'

        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = ", ".join(str(x) for x in v)
        else:
            out[key] = "" if v is None else str(v)
    return out


def _env_table(site: Site, page: Page, runs: list[str]) -> str:
    infos = [site.data.runs.get(run) for run in runs]
    flat = [_flatten(i.env) if i else {} for i in infos]
    keys: list[str] = []
    for f in flat:
        for k in f:
            if k not in keys:
                keys.append(k)
    if not keys:
        return '<div><p class="epl-empty">No environment record (<code>&lt;run&gt;.env.json</code>) found for these runs.</p></div>'
    header = ["", *runs]
    rows = [[f"<code>{esc(k)}</code>", *(esc(f.get(k, "")) or dash() for f in flat)] for k in keys]
    rows.insert(0, ["device", *(page.a(layout.device(i.device), i.device) if i else dash() for i in infos)])
    return table(header, rows, cls="epl-table epl-env")


# --- operators --------------------------------------------------------------------------------


def write_operator(site: Site, o: Operator) -> Page:
    page = Page(site.page_of(o), o.title, crumbs=[(layout.OPERATORS_INDEX, "Operators"), (None, o.title)])
    page.raw(f'<div class="epl-prose">{prose(o.summary)}</div>')
    page.raw(f'<div class="epl-math"><pre><code>{esc(o.math)}</code></pre></div>')
    page.heading(2, "Decomposition")
    page.para("Operator → structural features → execution primitives, stage by stage in execution order.")
    page.raw(_decomposition_flow(site, page, o))
    page.heading(2, "Features it shows")
    page.raw(table(["feature", "where it shows"],
                   [[site.link(page, "feature", f.feature), prose_inline(f.where)] for f in o.features]))
    page.heading(2, "Stages")
    page.raw(table(["#", "stage", "primitive", "realizations", "role"],
                   [[str(i), esc(s.name), site.link(page, "primitive", s.primitive),
                     str(len(site.cat.realizations_of(s.primitive))), prose_inline(s.role)]
                    for i, s in enumerate(o.decomposition, 1)], numeric=[3]))
    page.heading(2, "Realizations compared")
    page.raw("<div><p>Realizations of the whole operator, each composed from building blocks (realizations of "
             "its stages' primitives). Measurement contract: "
             + (f"<code>{esc(o.contract)}</code>" if o.contract else "none yet")
             + ". Peers to compare against: " + ", ".join(f"<code>{esc(x)}</code>" for x in o.peers)
             + ".</p></div>")
    _realizations_compared(site, page, o, "operator",
                           "No realization of this operator exists yet: one is a record "
                           f"<code>catalog/realizations/{esc(o.id)}/NAME.yaml</code> with "
                           f"<code>operator: {esc(o.id)}</code>, its kernel under "
                           f"<code>kernels/operators/{esc(o.id)}/</code>. Its stages' primitives are measured on "
                           "their own pages.")
    _against_the_peers(site, page, o)
    if o.notes:
        page.heading(2, "Notes")
        page.raw(f'<div class="epl-prose">{prose(o.notes)}</div>')
    experiment_pages.section(site, page, o)
    _record_footer(page, o)
    return page


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

    body = [[site.device_link(page, s.device), esc(s.dtype), esc(params_label(s.problem)), esc(shape_label(s.shape)),
             site.link_id(page, "realization", s.best.subject), esc(knobs_label(s.best.params, s.problem)),
             gbps(s.best.gbps), share(s.of_copy), share(s.of_at_size), esc(s.peer.subject.split("/", 1)[-1]),
             gbps(s.peer.gbps), f"{100 * s.margin:+.1f}%", badge(s.verdict),
             esc(s.run) + ("" if s.complete else " (partial)")]
            for s in strongest.values()]
    page.raw(table(["device", "dtype", "problem", "shape", "best", "at", "GB/s", "of copy", "of at-size", "peer",
                    "peer GB/s", "margin", "p10-p90", "run"], body, numeric=[6, 7, 8, 10, 11]))
    counts = [[site.device_link(page, device), esc(dtype), esc(params_label(problem)), str(t.shapes),
               str(t.at_least_median), str(t.ahead), str(t.level), str(t.behind), str(t.at_copy_share),
               str(t.at_size_share)]
              for (device, _contract, dtype, problem), t in sorted(tally(rows).items())]
    page.raw(table(["device", "dtype", "problem", "shapes", "median >= peer", "ahead", "level", "behind",
                    f">= {COPY_SHARE:.0%} of copy", f">= {COPY_SHARE:.0%} of at-size"], counts,
                   numeric=[3, 4, 5, 6, 7, 8, 9]))


def _decomposition_flow(site: Site, page: Page, o: Operator) -> str:
    feats = "".join(f'<li>{site.link(page, "feature", f.feature)}</li>' for f in o.features)
    stages = []
    for i, s in enumerate(o.decomposition, 1):
        prim = site.cat.primitives.get(s.primitive)
        fam = f'<span class="epl-fam epl-fam--{esc(prim.family)}">{esc(site.family_title(prim.family))}</span>' if prim else ""
        n = len(site.cat.realizations_of(s.primitive))
        stages.append(f'<div class="epl-stage"><div class="epl-stage__n">{i}</div>'
                      f'<div class="epl-stage__name">{esc(s.name)}</div>'
                      f'<div class="epl-stage__prim">{site.link(page, "primitive", s.primitive)}</div>{fam}'
                      f'<div class="epl-stage__meta">{n} realization{"s" if n != 1 else ""}</div></div>')
    arrow = '<div class="epl-arrow" aria-hidden="true">→</div>'
    return (f'<div class="epl-decomp"><div class="epl-decomp__op"><div class="epl-decomp__label">operator</div>'
            f"<strong>{esc(o.title)}</strong></div>{arrow}"
            f'<div class="epl-decomp__feats"><div class="epl-decomp__label">features</div><ul>{feats}</ul></div>{arrow}'
            f'<div class="epl-decomp__stages"><div class="epl-decomp__label">primitives, in stage order</div>'
            f'<div class="epl-stages">{arrow.join(stages)}</div></div></div>')


def write_operators_index(site: Site) -> Page:
    page = Page(layout.OPERATORS_INDEX, "Operator case studies")
    page.para("Operators are not implemented one by one: each is decomposed into features and primitives, "
              "and a realization of the whole operator is composed from the primitives' building blocks.")
    page.raw(table(["operator", "stages", "features", "realizations", "summary"],
                   [[site.link(page, "operator", o.id),
                     " → ".join(site.link_id(page, "primitive", s.primitive) for s in o.decomposition),
                     str(len(o.features)), str(len(site.cat.realizations_of(o.id))),
                     prose_inline(_first_sentence(o.summary))]
                    for o in site.cat.operators.values()], numeric=[2, 3]))
    return page


# --- devices and evidence status --------------------------------------------------------------


def write_device(site: Site, device: str) -> Page:
    page = Page(layout.device(device), f"Device: {device}",
                crumbs=[(layout.EVIDENCE_STATUS, "Evidence"), (layout.DEVICES_INDEX, "Devices"), (None, device)])
    runs = sorted((i for i in site.data.runs.values() if i.device == device), key=lambda i: (i.utc, i.run))
    if runs:
        newest = runs[-1]
        flat = _flatten({k: v for k, v in newest.env.items() if k != "ceilings"})
        page.heading(2, "The device")
        key = [(k, flat[k]) for k in _DEVICE_KEYS if flat.get(k)]
        places = _cluster_places_text(newest.env)
        if places:
            key.append(("clusters placed at once (blocks a cluster: clusters), one block an SM", places))
        ceilings = newest.env.get("ceilings")
        if isinstance(ceilings, dict) and ceilings:
            key.append(("ceilings (GB/s)", ", ".join(f"{n} {v}" for n, v in _flatten(ceilings).items())))
        page.raw(_facts([(k, esc(v)) for k, v in key]) if key else
                 '<div><p class="epl-empty">No environment record for its newest run.</p></div>')
        if flat:
            page.raw(f'<details class="epl-details"><summary>Full environment of the newest run, '
                     f"<code>{esc(newest.run)}</code></summary>" + _facts([(k, esc(v)) for k, v in flat.items()])
                     + "</details>")
    page.heading(2, "Measured ceilings")
    ceil_rows = []
    for i in runs:
        c = i.env.get("ceilings")
        if isinstance(c, dict):
            for name, v in _flatten(c).items():
                ceil_rows.append([esc(name), esc(v), esc(i.run), esc(i.utc[:19])])
    ev = site.ev
    measured = ev[(ev["device"] == device) & (ev["kind"] == "ceiling")] if ev is not None else None
    if ceil_rows:
        page.raw(table(["ceiling", "value", "run", "UTC"], ceil_rows, caption_html="From each run's environment record."))
    if measured is not None and not measured.empty:
        page.raw(table(["ceiling", "dtype", "shape", "GB/s", "median ms", "run", "freshness"],
                       [[esc(s), esc(d), esc(sl), gbps(g), ms(m), esc(run), badge("stale", "stale") if st else badge("fresh", "fresh")]
                        for s, d, sl, g, m, run, st in zip(measured["subject"], measured["dtype"], measured["shape_label"],
                                                           measured["gbps"], measured["time_ms_median"], measured["run"],
                                                           measured["stale"])],
                       numeric=[3, 4], caption_html="Rows of kind <code>ceiling</code>, measured in the same runs as the realizations."))
    if not ceil_rows and (measured is None or measured.empty):
        page.para("No ceilings recorded for this device.", "epl-empty")
    page.heading(2, "Runs")
    rows = []
    provenance = _provenance(site)
    for i in runs:
        dest = f"{layout.device_files(device)}/{layout.slug(i.run)}.parquet"
        site.out.files[dest] = i.path.read_bytes()
        env_link = ""
        env_path = i.path.with_name(f"{i.run}.env.json")
        if env_path.is_file():
            env_dest = f"{layout.device_files(device)}/{layout.slug(i.run)}.env.json"
            site.out.files[env_dest] = env_path.read_bytes()
            env_link = f' · <a href="{esc(layout.rel(page.path, env_dest))}">environment</a>'
        n = int((ev["run"] == i.run).sum()) if ev is not None else 0
        subjects = sorted(set(ev[(ev["run"] == i.run) & (ev["kind"] == "realization")]["subject"])) if ev is not None else []
        holes = provenance.get(i.run)
        prov = badge("complete", "fresh") if holes == [] else (
            badge("incomplete", "stale") + " " + esc("; ".join(holes)) if holes else dash())
        rows.append([f"<code>{esc(i.run)}</code>", esc(i.utc[:19]), esc(_board(i.env)) or dash(), str(n),
                     ", ".join(site.link_id(page, "realization", s) for s in subjects) or dash(), prov,
                     f'<a href="{esc(layout.rel(page.path, dest))}">Parquet</a>{env_link}'])
    page.raw(table(["run", "UTC", "board", "rows", "realizations measured", "provenance", "files"], rows, numeric=[3],
                   caption_html="Board: the GPU's UUID (its first eight digits) and, where the run recorded it, "
                                "how many clusters of 16 blocks its GPCs place at once (a persistent cluster "
                                "grid's SMs are 16 times that). Provenance: whether the run recorded its "
                                "environment and a full commit of the history (or the hash of an uncommitted "
                                "tree); the holes of older runs are shown as they are, not filled in."))
    return page


def _provenance(site: Any) -> dict[str, list[str]]:
    """Run id → the holes in its provenance (epldb.evidence.provenance); {} when it cannot be read."""
    try:
        from epldb.evidence.provenance import run_provenance

        return {r.run: r.holes for r in run_provenance(site.data.catalog.root)}
    except Exception:  # noqa: BLE001 (a provenance bug must not take the device page down)
        return {}


def _cluster_places_text(env: dict[str, Any]) -> str:
    """A run's recorded cluster placement as "2: 66 · 4: 33 · ..."; the note it left if the
    driver refused; "" if it recorded none."""
    places = env.get("cluster_places")
    if isinstance(places, dict):
        return " · ".join(f"{k}: {v}" for k, v in sorted(places.items(), key=lambda kv: int(kv[0])))
    return str(places) if places else ""


def _board(env: dict[str, Any]) -> str:
    """Which board a run measured: its UUID's first eight digits, and its clusters of 16."""
    uuid = str(env.get("gpu_uuid") or "")
    short = uuid.removeprefix("GPU-")[:8]
    places = env.get("cluster_places")
    sixteen = places.get("16") if isinstance(places, dict) else None
    return " · ".join(x for x in (short, f"{sixteen} clusters of 16" if sixteen is not None else "") if x)


#: Environment fields shown first on a device page, when a run records them.
_DEVICE_KEYS = ("gpu", "gpu_name", "compute_capability", "sm_count", "memory_bytes", "l2_bytes", "driver",
                "driver_cuda_version", "cuda_runtime_version", "cuda_headers", "nvrtc", "cupy", "torch", "python",
                "clocks.max.sm", "clocks.max.mem", "clocks.sm", "clocks.mem", "power.limit", "persistence_mode")


def devices(site: Site) -> list[str]:
    names = {i.device for i in site.data.runs.values()}
    if site.ev is not None:
        names |= set(site.ev["device"])
    return sorted(names)


def write_devices_index(site: Site) -> Page:
    page = Page(layout.DEVICES_INDEX, "Devices", crumbs=[(layout.EVIDENCE_STATUS, "Evidence"), (None, "Devices")])
    names = devices(site)
    if not names:
        page.para(f"{NO_EVIDENCE}: no run has been recorded under <code>evidence/</code>.", "epl-empty")
        return page
    rows = []
    for d in names:
        runs = [i for i in site.data.runs.values() if i.device == d]
        gpu = next((str(i.env.get(k)) for i in runs for k in ("gpu", "gpu_name", "name", "device") if i.env.get(k)), "")
        rows.append([page.a(layout.device(d), d), esc(gpu), str(len(runs))])
    page.raw(table(["device", "GPU", "runs"], rows, numeric=[2]))
    return page


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
        items = [f"<li><code>{esc(p.format())}</code></li>" for p in problems[:200]]
        items += [f"<li>{esc(n)}</li>" for n in site.data.notes]
        page.raw("<div><ul>" + "".join(items) + "</ul></div>")
    return page


# --- codegen basis ----------------------------------------------------------------------------


def write_basis(site: Site) -> Page:
    """The device building blocks under kernels/include/: what each header is, who includes it."""
    page = Page(layout.BASIS, "Codegen basis")
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
        for rel_name, _ in _local_includes(include, source, (site.cat.root / r.kernel_path).parent):
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


# --- home snippet -----------------------------------------------------------------------------


def write_home_snippet(site: Site) -> str:
    """Markdown included into the hand-written site_src/index.md: the flow with live counts and the
    headline results. Links are relative to index.md."""
    cat = site.cat
    page = _Snippet(layout.HOME)
    n_ver = sum(r.status == "verified" for r in cat.realizations.values())
    n_inc = len(list((cat.root / "kernels" / "include").rglob("*.cuh"))) if (cat.root / "kernels" / "include").is_dir() else 0
    boxes = [
        (layout.OPERATORS_INDEX, "Operators", f"{len(cat.operators)} case studies"),
        (layout.FEATURES_INDEX, "Structural features", f"{len(cat.features)} features"),
        (layout.PRIMITIVES_INDEX, "Execution primitives",
         f"{len(cat.primitives)} in {len({p.family for p in cat.primitives.values()})} families"),
        (layout.EVIDENCE_STATUS, "GPU realizations", f"{len(cat.realizations)} ({n_ver} verified)"),
        (layout.BASIS, "Hardware-aware codegen", f"{n_inc} device building blocks"),
    ]
    arrow = '<div class="epl-arrow" aria-hidden="true">→</div>'
    flow = arrow.join(f'<a class="epl-flow__box" href="{esc(layout.href(page.path, to))}">'
                      f'<span class="epl-flow__title">{esc(t)}</span><span class="epl-flow__count">{esc(c)}</span></a>'
                      for to, t, c in boxes)
    parts = [f'<div class="epl-flow">{flow}</div>', ""]
    parts.append("## Headline results\n")
    ev = site.ev
    heads = [h for p in cat.primitives.values() if ev is not None and (h := V.headline(ev, p.id, site.order(p.id)))]
    if not heads:
        parts.append(f'<div class="epl-empty"><p><strong>{NO_EVIDENCE}.</strong> No realization has been '
                     "measured on a GPU. Static evidence (registers, shared memory, spills, SASS claims) is on "
                     "every realization page; measured bandwidth against peers and the device ceiling appears "
                     f'here after <code>epldb bench</code> runs on a GPU (<a href="{esc(layout.href(page.path, layout.EVIDENCE_STATUS))}">'
                     "evidence status</a>).</p></div>")
    else:
        rows = []
        for h in heads:
            real = cat.realizations.get(str(h.best["subject"]))
            best = (f'<a href="{esc(layout.href(page.path, site.page_of(real)))}">{esc(real.title)}</a>'
                    if real else esc(h.best["subject"]))
            prim = cat.primitives[h.primitive]
            rows.append([
                f'<a href="{esc(layout.href(page.path, site.page_of(prim)))}">{esc(prim.title)}</a>',
                f'<a href="{esc(layout.href(page.path, layout.device(h.device)))}">{esc(h.device)}</a>',
                esc(f"{V.problem_label(h.problem)} · {h.best['shape_label']}"),
                f"{best}<br><small>{esc(h.best['knobs_label'])}</small>",
                f"{gbps(h.best['gbps'])} <small>{pct(h.best['frac_ceiling'])}</small>",
                (f"{esc(h.peer['subject_label'])}: {gbps(h.peer['gbps'])} <small>{pct(h.peer['frac_ceiling'])}</small>"
                 if h.peer is not None else dash()),
                gbps(h.ceiling),
            ])
        parts.append(table(["primitive", "device", "problem", "best realization", "GB/s (% ceiling)",
                            "best peer GB/s (% ceiling)", "ceiling GB/s"], rows, numeric=[4, 6],
                           caption_html="Newest fresh passing rows, at each primitive's largest measured shape."))
    return "\n".join(parts) + "\n"


class _Snippet:
    def __init__(self, path: str) -> None:
        self.path = path


# --- navigation -------------------------------------------------------------------------------


def nav(site: Site) -> list[Any]:
    """The nav, as MkDocs reads it (titles HTML-escaped: themes print nav titles unescaped)."""
    cat = site.cat
    t = esc

    def subject_section(p: Primitive | Operator) -> dict[str, Any]:
        rs = cat.realizations_of(p.id)
        if not rs:
            return {t(p.title): site.page_of(p)}
        return {t(p.title): [site.page_of(p)] + [{t(r.title): site.page_of(r)} for r in rs]}

    prims: list[Any] = [layout.PRIMITIVES_INDEX]
    for fam in site.families():
        items: list[Any] = [layout.family(fam)]
        items += [subject_section(p) for p in cat.primitives.values() if p.family == fam]
        if fam == layout.UNFILED:
            items += [{t(r.title): site.page_of(r)} for r in site.orphans()]
        prims.append({t(site.family_title(fam)): items})
    evidence: list[Any] = [{"Status": layout.EVIDENCE_STATUS},
                           {"Devices": [layout.DEVICES_INDEX] + [{t(d): layout.device(d)} for d in devices(site)]}]
    return [
        {"Home": layout.HOME},
        {"Features": [layout.FEATURES_INDEX] + [{t(f.title): site.page_of(f)} for f in cat.features.values()]},
        {"Primitives": prims},
        {"Operators": [layout.OPERATORS_INDEX] + [subject_section(o) for o in cat.operators.values()]},
        {"Codegen basis": layout.BASIS},
        {"Experiments": experiment_pages.nav(site)},
        {"Evidence": evidence},
        {"Contributing": layout.CONTRIBUTING},
        *([{"Architecture": layout.ARCHITECTURE}] if (cat.root / layout.ARCHITECTURE_SOURCE).is_file() else []),
    ]


# --- all of it --------------------------------------------------------------------------------


def generate_pages(data: SiteData, docs_dir: Path, progress: Callable[[str], None] | None = None) -> Output:
    """Write every generated page, chart and file under ``docs_dir/generated`` (replacing it)."""
    site = Site(data)
    cat = data.catalog
    out = site.out
    say = progress or (lambda _: None)
    out.add(write_features_index(site))
    for f in cat.features.values():
        out.add(write_feature(site, f))
    out.add(write_primitives_index(site))
    for fam in site.families():
        out.add(write_family(site, fam))
    say(f"primitive pages ({len(cat.primitives)})")
    for p in cat.primitives.values():
        out.add(write_primitive(site, p))
    for i, r in enumerate(cat.realizations.values()):
        if i % 10 == 0:
            say(f"realization pages {i + 1}-{min(i + 10, len(cat.realizations))} of {len(cat.realizations)}")
        out.add(write_realization(site, r))
    say(f"operator pages ({len(cat.operators)}), devices, basis, experiments")
    out.add(write_operators_index(site))
    for o in cat.operators.values():
        out.add(write_operator(site, o))
    out.add(write_devices_index(site))
    for d in devices(site):
        out.add(write_device(site, d))
    out.add(write_evidence_status(site))
    out.add(write_basis(site))
    experiment_pages.add_pages(site, out.add)
    out.files[layout.HOME_SNIPPET] = write_home_snippet(site).encode("utf-8")
    architecture = cat.root / layout.ARCHITECTURE_SOURCE
    if architecture.is_file():
        out.files[layout.ARCHITECTURE] = architecture.read_bytes()
    out.files[layout.NAV_FILE] = yaml.safe_dump({"nav": nav(site)}, sort_keys=False, allow_unicode=True).encode("utf-8")

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


def record_pages(data: SiteData) -> dict[str, str]:
    """Record id (prefixed by kind) → its page path; what the tests check against the built site."""
    site = Site(data)
    out: dict[str, str] = {}
    for kind, mapping in (("feature", data.catalog.features), ("primitive", data.catalog.primitives),
                          ("realization", data.catalog.realizations), ("operator", data.catalog.operators)):
        for rid, rec in mapping.items():
            out[f"{kind}:{rid}"] = site.page_of(rec)
    for fam in site.families():
        out[f"family:{fam}"] = layout.family(fam)
    for d in devices(site):
        out[f"device:{d}"] = layout.device(d)
    out.update(experiment_pages.pages(site))
    return out


__all__ = ["Output", "generate_pages", "record_pages"]
