"""An operator's ladder (its record's ``ladder``: realizations simplest first, each one structural
change over the last): what each rung adds, then per device a table of every rung's best verified
rate at each measured shape with its step over the rung before, and a chart per shape with the
rungs along the x axis, the strongest peer as a level line and the board's ceiling.

The rate is the contract's figure of merit: GFLOP/s shown as TFLOP/s where the contract is judged by
a rate ceiling (a GEMM against the tensor cores), GB/s of its minimal bytes otherwise (a transpose
against the copy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from epldb.records import Operator
from epldb.site.data import unchecked_rate_runs
from epldb.site.charts import Chart, Series
from epldb.site.escape import html as esc
from epldb.site.escape import prose_inline
from epldb.site.html import Page, badge, dash, table
from epldb.site.pages.common import first_sentence
from epldb.site.pages.site import Site

if TYPE_CHECKING:
    import pandas as pd


def ladder(site: Site, page: Page, o: Operator) -> None:
    if not o.ladder:
        return
    from epldb.contracts import get_contract

    contract = get_contract(o.contract)
    rate = contract is not None and contract.rate_ceiling is not None
    page.heading(2, "Ladder")
    page.para("The realizations as a ladder, simplest first: each rung makes one structural change to the one "
              "above it, and its record says why that change pays (or where it does not).")
    page.raw(table(["#", "rung", "status", "what it changes"],
                   [[str(i), site.link_id(page, "realization", rid), _status(site, rid), _adds(site, rid)]
                    for i, rid in enumerate(o.ladder, 1)], numeric=[0]))
    rows = _rows(site, o, contract.name if contract is not None else "")
    if rows is None:
        page.para("No rung has been measured on a GPU yet.", "epl-empty")
        return
    from epldb.site import views as V

    unit = "TFLOP/s" if rate else "GB/s"
    page.para(f"Best verified parameter point of each rung at each measured shape ({unit}, medians of the newest "
              "run that timed it), its step over the rung above it (×), and the strongest peer of the same runs. "
              + ("The ceiling is the tensor-core rate measured in the run (cuBLAS at 8192³)." if rate
                 else "The ceiling is the run's device copy."))
    for device in sorted(set(rows["device"])):
        dev = rows[rows["device"] == device]
        for problem in V.problems(dev):
            at = V.of_problem(dev, problem)
            _problem_ladder(site, page, o, at, device, problem, _ceilings(at, dev, contract, rate), rate)


def _problem_ladder(site: Site, page: Page, o: Operator, at: "pd.DataFrame", device: str,
                    problem: tuple[str, str], ceilings: dict[str, float], rate: bool) -> None:
    """The table and the charts of one device and problem (dtype and problem parameters)."""
    unit, col, scale = ("TFLOP/s", "gflops", 1e-3) if rate else ("GB/s", "gbps", 1.0)
    shapes = _ordered(at)
    if not shapes:
        return
    best = _best(at[at["kind"] == "realization"], col)
    peers = _best(at[at["kind"] == "peer"], col)
    labels = dict(zip(at["shape"], at["shape_label"]))
    name = " ".join(filter(None, problem))
    page.heading(3, f"On {device}, {name}")
    body = []
    for rid in o.ladder:
        cells = []
        for s in shapes:
            v = best.get((rid, s))
            prev = _previous(best, o.ladder, rid, s)
            step = f" <small>×{v / prev:.2f}</small>" if v is not None and prev else ""
            cells.append(dash() if v is None else f"{v * scale:.1f}{step}")
        body.append([site.link_id(page, "realization", rid), *cells])
    for peer in sorted({p for p, _ in peers}):
        body.append([esc(peer.split("/", 1)[-1]) + " <small>(peer)</small>",
                     *[dash() if (v := peers.get((peer, s))) is None else f"{v * scale:.1f}" for s in shapes]])
    page.raw(table(["rung", *[esc(labels[s]) for s in shapes]], body, numeric=list(range(1, len(shapes) + 1))))
    for s in shapes:
        values = {_short(rid): best[(rid, s)] * scale for rid in o.ladder if (rid, s) in best}
        if len(values) < 2:
            continue
        strongest = max(((p, v) for (p, sh), v in peers.items() if sh == s), key=lambda pv: pv[1], default=None)
        ceiling = ceilings.get(s)
        chart = Chart(title=f"{o.id} ladder on {device}, {name}, at {labels[s]}", shapes=[_short(r) for r in o.ladder],
                      series=[Series("best point of each rung", "realization", values, 0)],
                      ceiling={x: ceiling * scale for x in values} if ceiling else {},
                      ceiling_label="tensor-core ceiling (cuBLAS 8192³)" if rate else "copy ceiling",
                      ylabel=unit, x_name="rung", value_name=col,
                      level=strongest[1] * scale if strongest else None,
                      level_label=f"{strongest[0].split('/', 1)[-1]} (peer)" if strongest else "")
        page.raw(site.chart(page, f"{o.id}-ladder-{device}-{name}-{labels[s]}", chart))


def _status(site: Site, rid: str) -> str:
    r = site.cat.realizations.get(rid)
    return dash() if r is None else badge(r.status, "pass" if r.status == "verified" else "warn")


def _adds(site: Site, rid: str) -> str:
    r = site.cat.realizations.get(rid)
    return dash() if r is None else prose_inline(first_sentence(r.summary or r.title))


def _short(rid: str) -> str:
    return rid.split("/", 1)[-1]


def _rows(site: Site, o: Operator, contract: str) -> "pd.DataFrame | None":
    """Newest fresh rows of the rungs, and the peer and ceiling rows of the runs that timed them."""
    from epldb.site import views as V

    ev = site.ev
    if ev is None:
        return None
    own = ev[(ev["kind"] == "realization") & ev["subject"].isin(set(o.ladder)) & ev["timed"]]
    if own.empty:
        return None
    runs = set(own["run"])
    beside = ev[ev["run"].isin(runs) & (((ev["kind"] == "peer") & ev["subject"].str.startswith(f"{contract}/"))
                                        | (ev["kind"] == "ceiling"))]
    import pandas as pd

    latest = V.latest(pd.concat([own, beside]))
    return latest if not latest.empty else None


def _best(rows: "pd.DataFrame", col: str) -> dict[tuple[str, str], float]:
    """(subject, shape) → the highest rate of a passing row."""
    out: dict[tuple[str, str], float] = {}
    ok = rows[rows["passed"]] if "passed" in rows else rows
    for subject, shape, v in zip(ok["subject"], ok["shape"], ok[col]):
        if v is None or v != v:  # missing or NaN
            continue
        k = (str(subject), str(shape))
        out[k] = max(out.get(k, 0.0), float(v))
    return out


def _previous(best: dict[tuple[str, str], float], ladder: tuple[str, ...], rid: str, shape: str) -> float | None:
    """The rate of the nearest rung above ``rid`` measured at ``shape``."""
    i = ladder.index(rid)
    for above in reversed(ladder[:i]):
        if (above, shape) in best:
            return best[(above, shape)]
    return None


def _ordered(rows: "pd.DataFrame") -> list[str]:
    from epldb.site import views as V

    timed = rows[(rows["kind"] == "realization") & rows["passed"]]
    return V.ordered_shapes(timed if not timed.empty else rows[rows["kind"] == "realization"])


def _ceilings(rows: "pd.DataFrame", device_rows: "pd.DataFrame", contract: object, rate: bool) -> dict[str, float]:
    """Shape of ``rows`` → the ceiling of the runs that timed it: the rate ceiling's GFLOP/s (a row of
    its own in ``device_rows``), or the copy's GB/s that the realization rows were judged by."""
    meas = rows[rows["kind"] == "realization"]
    if not rate:
        meas = meas[meas["ceiling_gbps"].notna()]
        return {str(s): float(v) for s, v in zip(meas["shape"], meas["ceiling_gbps"])}
    name = f"ceiling/{getattr(contract, 'rate_ceiling', '')}"
    ceil = device_rows[(device_rows["kind"] == "ceiling") & (device_rows["subject"] == name) & device_rows["gflops"].notna()]
    # A rate ceiling far above its run's own cuBLAS peer timed nothing and is not drawn
    # (epldb.site.data.unchecked_rate_runs).
    bad = unchecked_rate_runs(device_rows)
    runs = {str(r): float(v) for r, v in zip(ceil["run"], ceil["gflops"]) if str(r) not in bad}
    out: dict[str, float] = {}
    for s, r in zip(meas["shape"], meas["run"]):
        if str(r) in runs:
            out[str(s)] = max(out.get(str(s), 0.0), runs[str(r)])
    return out


__all__ = ["ladder"]
