"""One generation of the site: the ``Site`` every page kind writes through (the catalog, where each
record's page is, evidence lookups done once, the decision tables, charts and data files beside a
page) and the ``Output`` it fills."""

from __future__ import annotations

import csv
import io
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from epldb.leads import Leads, short_commit
from epldb.records import Feature, Operator, Primitive, Realization
from epldb.site import layout
from epldb.site import views as V
from epldb.site.charts import Chart
from epldb.site.data import SiteData
from epldb.site.decisions import Decisions
from epldb.site.escape import html as esc
from epldb.site.html import Page

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd


FAMILY_TITLES = {
    "reduction": "Reduction",
    "streaming": "Streaming",
    "tile-staging": "Tile staging",
    "rematerialization": "Rematerialization",
    "fusion": "Fusion and boundary handling",
}


FAMILY_ORDER = list(FAMILY_TITLES)


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

    def __init__(self, data: SiteData, progress: Callable[[str], None] | None = None) -> None:
        self.data = data
        self.say: Callable[[str], None] = progress or (lambda _: None)  # progress messages of a long kind
        self.cat = data.catalog
        self.out = Output()
        self.pending_charts: list[tuple[Chart, str, str]] = []
        self._rows_r: dict[str, Any] = {}  # evidence rows by realization / primitive, filtered once
        self._rows_p: dict[str, Any] = {}
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

    def records(self, kind: str) -> Mapping[str, Feature | Primitive | Realization | Operator]:
        """The catalog's records of one kind ("feature", "primitive", "realization", "operator") by id."""
        mappings: dict[str, Mapping[str, Feature | Primitive | Realization | Operator]] = {
            "feature": self.cat.features, "primitive": self.cat.primitives,
            "realization": self.cat.realizations, "operator": self.cat.operators}
        return mappings[kind]

    def link(self, page: Page, kind: str, record_id: str) -> str:
        """A link to a record by id, or the id as plain text marked missing when it does not resolve."""
        record = self.records(kind).get(record_id)
        if record is None:
            return _missing(record_id)
        return page.a(self.page_of(record), record.title)

    def link_id(self, page: Page, kind: str, record_id: str) -> str:
        """Like ``link`` but shows the id (for dense tables)."""
        record = self.records(kind).get(record_id)
        if record is None:
            return _missing(record_id)
        return f'<a href="{esc(page.href(self.page_of(record)))}"><code>{esc(record_id)}</code></a>'

    def subject_link(self, page: Page, subject_id: str) -> str:
        """``link_id`` of what a realization realizes: an operator, else a primitive, by id."""
        return self.link_id(page, "operator" if subject_id in self.cat.operators else "primitive", subject_id)

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

    def sanitizer_rows(self, rid: str) -> "pd.DataFrame | None":
        """The realization's rows under compute-sanitizer (epldb/sanitize.py), or None."""
        ev = self.ev
        rows = ev[(ev["kind"] == "sanitizer") & (ev["subject"] == rid)] if ev is not None else None
        return rows if rows is not None and not rows.empty else None

    def sanitizer_newest(self, rid: str) -> "pd.DataFrame | None":
        """Of the realization's sanitizer rows, the newest per device and tool, or None."""
        rows = self.sanitizer_rows(rid)
        return None if rows is None else rows.sort_values(["utc", "run"]).groupby(["device", "params"],
                                                                                  observed=True).tail(1)

    def rows_of_primitive(self, pid: str) -> "pd.DataFrame | None":
        if pid not in self._rows_p:
            ev = self.ev
            rows = ev[ev["primitive"] == pid] if ev is not None else None
            self._rows_p[pid] = rows if rows is not None and not rows.empty else None
        return self._rows_p[pid]

    @cached_property
    def decisions(self) -> Decisions:
        """Each subject's decision table (epldb.select.rules), over one Selector of this evidence."""
        return Decisions(self.cat, self.ev)

    @cached_property
    def leads(self) -> Leads | None:
        """Each realization's latest runs (epldb.leads), over every run of the evidence."""
        if self.ev is None:
            return None
        commits = {run: short_commit(info.env.get("git_commit")) for run, info in self.data.runs.items()}
        return Leads(self.cat, self.ev, commits)

    def colour_of(self, primitive_id: str, kind: str, label: str) -> int | None:
        """A fixed palette slot per realization (catalog order), so a series keeps its colour on
        every chart of the primitive. Peers take their colour from their name (charts.PEER_COLOURS)."""
        if kind != "realization":
            return None
        ids = [r.id for r in self.cat.realizations_of(primitive_id)]
        return ids.index(label) if label in ids else None

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

    @cached_property
    def shipped_runs(self) -> frozenset[str]:
        """The runs whose files the site carries: each holds a row some page draws (the newest of a
        measurement, fresh or stale, per kind of row and of run). The rest, superseded everywhere,
        stay in the repository only: copying them made a third of the site's weight."""
        ev = self.ev
        if ev is None:
            return frozenset()
        newest = ev.drop_duplicates(subset=[c for c in (*V.KEY, "kind", "run_kind") if c in ev.columns], keep="last")
        return frozenset(str(r) for r in newest["run"].unique())

    def run_links(self, page: Page, device: str, run: str, data: "Path", env: "Path | None", *,
                  ship: bool | None = None) -> str:
        """Links to a run's Parquet file (and its environment, when there is one), copied to the one
        place the site keeps them, its device's folder: every page that links a run links there (an
        experiment's runs are its device's runs, not second copies). A run outside
        ``shipped_runs`` (unless ``ship``) is named by its path in the repository instead."""
        if not (ship if ship is not None else run in self.shipped_runs):
            where = data.relative_to(self.cat.root).as_posix() if data.is_relative_to(self.cat.root) else data.name
            return (f'<span class="epl-none" title="superseded on every page: the site does not carry it">'
                    f"in the repository: <code>{esc(where)}</code></span>")
        base = layout.device_files(device)
        dest = f"{base}/{layout.slug(run)}.parquet"
        self.out.files[dest] = data.read_bytes()
        files = [("Parquet", dest)]
        if env is not None and env.is_file():
            env_dest = f"{base}/{layout.slug(run)}.env.json"
            self.out.files[env_dest] = env.read_bytes()
            files.append(("environment", env_dest))
        return " · ".join(f'<a href="{esc(layout.rel(page.path, d))}">{esc(label)}</a>' for label, d in files)

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


def _missing(record_id: str) -> str:
    return f'<span class="epl-missing" title="not in the catalog">{esc(record_id)}</span>'


__all__ = ["FAMILY_ORDER", "FAMILY_TITLES", "Output", "Site"]
