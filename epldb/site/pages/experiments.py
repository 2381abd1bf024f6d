"""The experiments on the site: an index with each one's verdict, a page per experiment, and the list
of experiments on every realization, primitive and operator page they concern.

Everything a record says is escaped: ids and titles by ``html``, prose fields by ``prose`` (a safe
subset of Markdown, never links or raw HTML).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from epldb.catalog import Catalog
from epldb.lint.experiment_evidence import StoredRun, stored_runs
from epldb.records import Experiment, Operator, Primitive, Realization, Record
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.escape import prose, prose_inline
from epldb.site.html import Page, badge, dash, table
from epldb.site.pages.common import first_sentence, record_footer
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site

TITLE = "Experiments"
FIELDS = (("Question", "question"), ("Expectation, written before the run", "expectation"),
          ("Change", "change"), ("Result", "result"))


def _record(cat: Catalog, record_id: str) -> Record | None:
    if "/" in record_id:
        return cat.realizations.get(record_id)
    return cat.primitives.get(record_id) or cat.operators.get(record_id)


def _link_id(site: Site, page: Page, record_id: str) -> str:
    """A concerned record by id, linked to its page (plain and marked missing when it is not in the catalog)."""
    record = _record(site.cat, record_id)
    if record is None:
        return f'<span class="epl-missing" title="not in the catalog">{esc(record_id)}</span>'
    return f'<a href="{esc(page.href(site.page_of(record)))}"><code>{esc(record_id)}</code></a>'


def _experiment_link(page: Page, e: Experiment, *, title: bool = True) -> str:
    label = f"<code>{esc(e.id)}</code>" + (f" {esc(e.title)}" if title else "")
    return f'<a href="{esc(page.href(layout.experiment(e.id)))}">{label}</a>'


_CITATION = re.compile(r"\b([Ee]xperiments?(?:\s+|/))([0-9]{4}-[a-z0-9]+(?:-[a-z0-9]+)*)")


def _linked(site: Site, page: Page, safe_html: str) -> str:
    """Escaped prose with each citation of an existing experiment (``experiment NNNN-slug``) made a
    link to its page; the id is matched by a strict pattern and the link built here, so nothing the
    record says becomes markup."""
    def link(m: re.Match[str]) -> str:
        eid = m.group(2)
        if eid not in site.cat.experiments:
            return m.group(0)
        return f'{m.group(1)}<a href="{esc(page.href(layout.experiment(eid)))}">{eid}</a>'

    return _CITATION.sub(link, safe_html)


def _verdict(e: Experiment) -> str:
    return badge(e.verdict)


# --- the index and the pages --------------------------------------------------------------------


def write_index(site: Site) -> Page:
    cat = site.cat
    page = Page(layout.EXPERIMENTS_INDEX, TITLE)
    counts = Counter(e.verdict for e in cat.experiments.values())
    page.para("Each experiment put one question to the hardware: what was expected before the run, what was "
              "changed (a kernel body, a header, a parameter space, a probe beside the catalog), what came back, "
              "and what became of it: <em>adopted</em> (in the catalog now), <em>rejected</em> (measured and "
              "not taken), or <em>open</em> (a finding that decides nothing yet). Their runs are evidence of kind "
              "experiment, kept apart from the realizations' own. The scripts and patches stay in the history, "
              "at the commit each result names.")
    if not cat.experiments:
        page.para("No experiment is recorded yet: one is a record <code>catalog/experiments/NNNN-slug.yaml</code>.",
                  "epl-empty")
        return page
    page.raw(f'<div class="epl-summary"><p><strong>{len(cat.experiments)}</strong> experiments: '
             f"{counts['adopted']} adopted, {counts['rejected']} rejected, {counts['open']} open.</p></div>")
    rows = [[_experiment_link(page, e, title=False), esc(e.title), esc(e.date), _verdict(e),
             ", ".join(_link_id(site, page, c) for c in e.concerns)]
            for e in cat.experiments.values()]
    page.raw(table(["experiment", "title", "date", "verdict", "concerns"], rows))
    return page


def _runs_table(site: Site, page: Page, e: Experiment, stored: dict[str, StoredRun]) -> str:
    rows = []
    for run in e.evidence:
        found = stored.get(run)
        if found is None or found.data is None:
            rows.append([f"<code>{esc(run)}</code>", dash(), dash(), dash(), '<span class="epl-none">not stored</span>'])
            continue
        links = _run_links(site, page, found)
        count = _row_count(found)
        env = found.env or {}
        commit = str(env.get("git_commit") or "")
        dirty = " (uncommitted tree)" if env.get("git_dirty") else ""
        rows.append([f"<code>{esc(run)}</code>", esc(run.split("-")[1] if run.count("-") >= 2 else ""),
                     str(count) if count is not None else dash(),
                     (f"<code>{esc(commit[:12])}</code>{esc(dirty)}" if commit and commit != "unknown"
                      else '<span class="epl-none">not recorded</span>'), links])
    return table(["run", "kind", "rows", "tree measured", "files"], rows, numeric=[2],
                 caption_html="Runs of kind experiment: modified copies of kernels or probes, never a realization's "
                              "own evidence. Tree measured: the commit the run's environment records.")


def _row_count(run: StoredRun) -> int | None:
    """The rows of a sealed run, from its Parquet metadata (None when the file cannot be read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    assert run.data is not None
    try:
        return int(pq.read_metadata(run.data).num_rows)
    except (OSError, pa.ArrowException):
        return None


def _run_links(site: Site, page: Page, run: StoredRun) -> str:
    """Links to a run's files, kept once in its device's folder (evidence/<device>/experiments/<run>
    is measured on <device>); always carried: the experiment cites it."""
    assert run.data is not None
    known = site.data.runs.get(run.run)
    device = known.device if known is not None else run.data.parent.parent.name
    return site.run_links(page, device, run.run, run.data, run.env_path, ship=True)


def write_experiment(site: Site, e: Experiment, stored: dict[str, StoredRun]) -> Page:
    # In the search index: what it asked and what it found; not the change it made nor its runs (a
    # change log naming every operator it touched would outrank the operators' own pages).
    page = Page(layout.experiment(e.id), e.title, crumbs=[(layout.EXPERIMENTS_INDEX, TITLE), (None, e.id)],
                search_sections=("Question", "Result"))
    page.raw(f'<div class="epl-status">{_verdict(e)} <code>{esc(e.id)}</code> · begun {esc(e.date)} · concerns '
             + ", ".join(_link_id(site, page, c) for c in e.concerns) + "</div>")
    for heading, name in FIELDS:
        page.heading(2, heading)
        page.raw(f'<div class="epl-prose">{_linked(site, page, prose(getattr(e, name)))}</div>')
    page.heading(2, "Evidence runs")
    if e.evidence:
        page.raw(_runs_table(site, page, e, stored))
    else:
        page.para("No run of this experiment is kept as evidence: its result names the runs and the commit whose "
                  "history holds its raw output.", "epl-empty")
    record_footer(page, e)
    return page


def _pages(site: Site) -> Iterator[Page]:
    """The index and every experiment's page."""
    stored = stored_runs(site.cat.root)
    yield write_index(site)
    for e in site.cat.experiments.values():
        yield write_experiment(site, e, stored)


def nav(site: Site) -> str:
    """The Experiments section of the nav: the index alone, which lists and links every experiment
    (a nav entry each would be dozens of lines in every page's sidebar)."""
    return layout.EXPERIMENTS_INDEX


def paths(site: Site) -> dict[str, str]:
    """``experiment:<id>`` → its page, for ``record_pages``."""
    return {f"experiment:{e.id}": layout.experiment(e.id) for e in site.cat.experiments.values()}


# --- on the pages of the records they concern --------------------------------------------------


def section(site: Site, page: Page, record: Realization | Primitive | Operator) -> None:
    """The experiments that concern ``record`` (for a primitive or operator, also those concerning one of
    its realizations), each with its verdict and its result's first sentence; nothing when none does."""
    whole = not isinstance(record, Realization)
    found = site.cat.experiments_concerning(record.id, realizations=whole)
    if not found:
        return
    page.heading(2, TITLE)
    counts = Counter(e.verdict for e in found)
    tally = ", ".join(f"{counts[v]} {v}" for v in ("adopted", "rejected", "open") if counts[v])
    page.para(f"What was tried{' here and on its realizations' if whole else ''}, and what became of it ({tally}); "
              f"{page.a(layout.EXPERIMENTS_INDEX, 'every experiment')}.")
    header = ["experiment", "verdict", "why"]
    rows = []
    for e in found:
        cells = [_experiment_link(page, e), _verdict(e), prose_inline(first_sentence(e.result))]
        if whole:
            named = [c for c in e.concerns if c == record.id or c.startswith(f"{record.id}/")]
            cells.insert(2, ", ".join(_link_id(site, page, c) for c in named))
        rows.append(cells)
    if whole:
        header.insert(2, "concerns")
    page.raw(table(header, rows))


KIND = PageKind("experiment", _pages, paths=paths, nav_title=TITLE, nav=nav)

__all__ = ["KIND", "nav", "paths", "section", "write_experiment", "write_index"]
