"""The "Leaderboard" section near the top of an operator's or primitive's page, after the decision
table: per device, dtype and measured shape, the fastest verified realization, its rate and share of
the run's copy ceiling, and its speedup over each peer timed in the same run (``epldb compare``'s
standings, one column a peer). The answer to "how far ahead of torch.compile, how close to the
ceiling" sits in one narrow row; the detailed standing (p10-p90, run, at-size share) stays in
"Against the peers" further down."""

from __future__ import annotations

from typing import TYPE_CHECKING

from epldb.site.escape import html as esc
from epldb.site.html import Page, dash, gbps, table
from epldb.site.pages.site import Site

if TYPE_CHECKING:
    from epldb.records import Operator, Primitive
    from epldb.standings import Standing

HEADING = "Leaderboard"


def leaderboard(site: Site, page: Page, subject: "Primitive | Operator") -> None:
    """The section, when the subject has standings against peers (else nothing)."""
    from epldb.site.data import knobs_label, params_label, shape_label
    from epldb.standings import standings

    if site.ev is None:
        return
    rows = standings(site.cat, site.ev, ids=[subject.id])
    if not rows:
        return
    cells: dict[tuple[str, str, str, str], dict[str, "Standing"]] = {}
    for s in rows:  # one standing per peer and shape: gather a shape's peers in one row
        cells.setdefault((s.device, s.dtype, s.problem, s.shape), {})[_peer_name(s)] = s
    peers = sorted({name for by_peer in cells.values() for name in by_peer})
    has_problem = any(params_label(k[2]) for k in cells)
    page.heading(2, HEADING)
    page.para("Per measured shape, the fastest verified realization; <em>of copy</em> is its share of the same "
              "run's device copy ceiling, and each peer's column its speedup over that peer in the same run "
              "(median over median: above 1 the realization is faster). Details, with p10-p90 ranges and runs, "
              "under <em>Against the peers</em>.")
    body = []
    for (device, dtype, problem, shape), by_peer in cells.items():
        s = next(iter(by_peer.values()))
        row = [site.device_link(page, device), esc(dtype)]
        if has_problem:
            row.append(esc(params_label(problem)) or dash())
        row += [f'<span class="epl-nowrap-plain">{esc(shape_label(shape))}</span>',
                site.link_id(page, "realization", s.best.subject) + f" <small>{esc(knobs_label(s.best.params, problem))}</small>",
                gbps(s.best.gbps), dash() if s.of_copy is None else f"{s.of_copy:.2f}"]
        row += [_speedup(by_peer.get(p)) for p in peers]
        body.append(row)
    head = ["device", "dtype"] + (["problem"] if has_problem else []) + ["shape", "fastest realization", "GB/s",
                                                                        "of copy"]
    first_peer = len(head)
    page.raw(table(head + [f"× {p}" for p in peers], body,
                   numeric=list(range(first_peer - 2, first_peer + len(peers)))))


def _peer_name(s: "Standing") -> str:
    return s.peer.subject.split("/", 1)[-1]


def _speedup(s: "Standing | None") -> str:
    if s is None or not s.peer.gbps:
        return dash()
    ratio = s.best.gbps / s.peer.gbps
    mark = "epl-ahead" if s.verdict == "ahead" else "epl-behind" if s.verdict == "behind" else "epl-level"
    return f'<span class="{mark}" title="{esc(s.verdict)} (p10-p90)">{ratio:.2f}</span>'


__all__ = ["HEADING", "leaderboard"]
