"""A realization's latest runs on its page: the lead of epldb.leads as a paragraph and a table of
its standing per cell, then its history across runs and commits, all computed from the evidence at
every build (no record holds these numbers).

History: one chart per device and problem (dtype, and the contract's other peer parameters), x the
bench runs that timed the realization, oldest first, each labelled with its date and the short
commit it measured; one line per shape (at most ``MAX_SHAPES`` of the shapes the most runs timed:
a history is of shapes measured again, not of a sweep's one-off shapes; the smallest, the largest
and evenly between), each point the best GB/s of any parameter point of the
realization at that shape in that run (passing rows). A run whose rows are stale (the kernel has
changed since) is drawn shaded, its points open.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from epldb.leads import cell_parts
from epldb.site import views as V
from epldb.site.charts import Chart, Series
from epldb.site.escape import html as esc
from epldb.site.html import dash, gbps, table

if TYPE_CHECKING:
    import pandas as pd

    from epldb.leads import CellLead, Lead

MAX_SHAPES = 4


@dataclass(frozen=True)
class History:
    device: str
    problem: tuple[str, str]  # (dtype, variant), as epldb.site.views has it
    runs: tuple[str, ...]  # the chart's x values, oldest first
    chart: Chart


def run_label(run: str, commit: str, *, with_time: bool = False) -> str:
    """``20261130T224720Z-bench-88c3`` at f355a47 → '2026-11-30 f355a47' (with the time: '2026-11-30
    22:47 f355a47'); a run id of another form as written."""
    stamp = run.split("-", 1)[0]
    if len(stamp) >= 15 and stamp[:8].isdigit() and stamp[8] == "T":
        when = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}" + (f" {stamp[9:11]}:{stamp[11:13]}" if with_time else "")
    else:
        when = run
    return f"{when} {commit or '?'}"


def _labels(runs: list[str], commits: Mapping[str, str]) -> dict[str, str]:
    """Each run's tick label, unique on the chart: the date and commit, the time where two runs of
    a day share a commit, the run id's suffix where they share the minute too."""
    labels = {run: run_label(run, commits.get(run, "")) for run in runs}
    for clash in (lambda run: run_label(run, commits.get(run, ""), with_time=True),
                  lambda run: f"{run_label(run, commits.get(run, ''), with_time=True)} ({run.rsplit('-', 1)[-1]})"):
        seen: dict[str, int] = {}
        for label in labels.values():
            seen[label] = seen.get(label, 0) + 1
        labels = {run: clash(run) if seen[label] > 1 else label for run, label in labels.items()}
    return labels


def histories(rid: str, rows: "pd.DataFrame", order: dict[str, list[object]],
              commits: Mapping[str, str]) -> list[History]:
    """The history charts of realization ``rid`` from its evidence rows (the site's normalized
    frame, epldb.site.data), main problem first on each device."""
    ok = rows[(rows["kind"] == "realization") & rows["passed"] & rows["timed"]]
    if "run_kind" in ok.columns:
        ok = ok[ok["run_kind"] != "experiment"]  # an experiment measures another kernel than the record's
    out: list[History] = []
    for device in sorted(set(ok["device"])):
        here = ok[ok["device"] == device]
        for problem in V.problems(here, order):
            scope = V.of_problem(here, problem)
            runs_at = scope.groupby("shape")["run"].nunique()
            shapes = V.reference_shapes(scope[scope["shape"].isin(runs_at[runs_at == runs_at.max()].index)],
                                        limit=MAX_SHAPES)
            scope = scope[scope["shape"].isin(shapes)]
            best = scope.groupby(["shape", "run"], sort=False)["gbps"].max()
            runs = sorted(set(scope["run"]))  # run ids begin with their UTC time
            labels = dict(zip(scope["shape"], scope["shape_label"]))
            series = [Series(labels[s], "realization", {run: float(g) for (sh, run), g in best.items() if sh == s}, i)
                      for i, s in enumerate(shapes)]
            label = V.problem_label(problem) or "all"
            chart = Chart(title=f"{rid} on {device}: {label}, across runs", shapes=runs,
                          series=series, x_name="run", tick_labels=_labels(runs, commits),
                          stale=sorted(set(scope[scope["stale"]]["run"])),
                          ylabel="best GB/s of the run (minimal bytes / median time)",
                          xlabel="bench run: date and commit measured (? none recorded), oldest first")
            out.append(History(device, problem, tuple(runs), chart))
    return out


def standing_table(lead: "Lead") -> str:
    """The lead's cells as a table: the realization's rate at each cell of the bench run, its share
    of the run's ceilings where it is the best, its standing among its subject's realizations and
    against the strongest peer, and how far it moved since the previous run."""

    def share(v: float | None) -> str:
        return dash() if v is None else f"{v:.2f}"

    def standing(c: "CellLead") -> str:
        if c.best:
            return "<strong>fastest</strong>" + (f", {esc(c.standing())}" if c.other is not None else "")
        return esc(c.standing()) or dash()

    body = [[esc(cell_parts(c.cell)[0]), esc(cell_parts(c.cell)[1]), gbps(c.gbps), share(c.of_copy),
             share(c.of_at_size), esc(c.point) or dash(), standing(c), esc(c.against_peer()) or dash(),
             dash() if c.moved is None else f"{(c.moved - 1.0) * 100:+.1f}%"]
            for c in lead.cells]
    return table(["problem", "shape", "GB/s", "of copy", f"of {lead.at_size}", "at",
                  f"among the {lead.subject} realizations", "strongest peer", "moved since the previous run"], body,
                 numeric=[2, 3, 4, 8],
                 caption_html=f"Bench run <code>{esc(lead.runs.bench)}</code>: its best passing row at each cell, "
                              "against the fastest verified realization there (or the runner-up where it is the "
                              "fastest); where it is, its shares of the run's ceilings and its strongest peer "
                              "(ahead or behind only where the p10-p90 ranges part).")
