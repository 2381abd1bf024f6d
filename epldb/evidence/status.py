"""What the evidence says of each realization's status (lint rule evidence-fresh): a ``verified``
one needs fresh passing GPU evidence, a ``draft`` one is told what evidence it has."""

from __future__ import annotations

from typing import TYPE_CHECKING

from epldb.evidence.row import canonical_json
from epldb.evidence.table import load_evidence, newest_fresh
from epldb.problems import Problem

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.records import Realization

RULE = "evidence-fresh"
_FAILED = ("incorrect", "compile-error", "runtime-error")


def evidence_problems(catalog: "Catalog", df: "pandas.DataFrame | None" = None, *, strict: bool = False) -> list[Problem]:
    """A ``verified`` realization needs fresh passing evidence on at least one device, with no
    fresh failure among the newest rows of that device (error at its ``status`` line); every
    ``draft`` realization gets a notice saying what evidence it has."""
    if df is None:
        df = load_evidence(catalog.root, catalog, experiments=False)
    newest = newest_fresh(df[df["kind"] == "realization"]) if len(df) else df
    unrecorded = _without_facts(catalog)
    problems: list[Problem] = []
    for rid, r in sorted(catalog.realizations.items()):
        mine = newest[newest["subject"] == rid] if len(newest) else newest
        stale = int(((df["subject"] == rid) & df["stale"].astype(bool)).sum()) if len(df) else 0
        devices_ok: list[str] = []
        failures: list[str] = []
        for device, rows in (mine.groupby("device") if len(mine) else []):
            bad = rows[rows["status"].isin(_FAILED)]
            if len(bad):
                first = bad.iloc[0]
                failures.append(f"{device}: {first['status']} at {first['params']} {first['shape']} (run {first['run']})")
            elif (rows["status"] == "passed").any():
                devices_ok.append(str(device))
        loc = r.loc("status")
        if r.status == "verified":
            if failures:
                problems.append(Problem(loc, "status is verified but the newest fresh evidence fails: " + "; ".join(failures[:3]),
                                        RULE, "$.status"))
            elif not devices_ok and stale and not strict:
                # The machine code changed and nobody with a GPU has measured it yet: shown as stale
                # everywhere, an error only under --strict (after a GPU run).
                problems.append(Problem(loc, f"stale, re-measure pending: {stale} row(s) measured "
                                        + _changed(rid, unrecorded, "verify") + " (validate --strict makes this an error)",
                                        RULE, "$.status", "warning"))
            elif devices_ok and (partly := _stale_timings(df, r)):
                # Fresh rows at a few points hide stale ones at the rest: selection reads fresh rows
                # only, so the points whose every timing is stale drop out of it unseen.
                problems.append(Problem(loc, f"partly stale: {partly} declared (point, shape) timing(s) measured "
                                        + _changed(rid, unrecorded, "bench"), RULE, "$.status",
                                        "error" if strict else "warning"))
            elif not devices_ok:
                since = (f"today's source has no compile facts, and 'epldb compile --record {rid}' may keep them"
                         if rid in unrecorded else "the kernel changed since they were measured")
                why = f" ({stale} stale row(s): {since})" if stale else ""
                problems.append(Problem(loc, f"status is verified but there is no fresh passing evidence on any GPU{why}; "
                                        "run 'epldb verify " + rid + "' on a GPU or set status: draft", RULE, "$.status"))
        else:
            if devices_ok and not failures:
                msg = f"draft; fresh passing evidence exists on {', '.join(devices_ok)}: it may be marked verified"
            elif failures:
                msg = "draft; fresh evidence fails: " + "; ".join(failures[:3])
            else:
                msg = "draft: no fresh evidence yet" + (f" ({stale} stale row(s))" if stale else "")
            problems.append(Problem(loc, msg, RULE, "$.status", "notice"))
    return problems


def _without_facts(catalog: "Catalog") -> set[str]:
    """Realizations whose source as it stands has no compile facts recorded (evidence/static/): the
    freshness of their rows cannot be read off the machine code until ``compile --record`` runs."""
    from epldb.evidence.freshness import current_hashes
    from epldb.evidence.static import recorded_source_hashes

    recorded = recorded_source_hashes(catalog.root)
    return {rid for rid, h in current_hashes(catalog.root, catalog).items() if h not in recorded}


def _changed(rid: str, unrecorded: set[str], gpu_step: str) -> str:
    """What the stale rows measured and what to run: a kernel whose machine code changed (re-measure
    on a GPU), or, where today's source has no facts, one whose machine code nobody has compared yet
    (a header edit that changes nothing stales every includer until its facts are recorded)."""
    again = f"'epldb {gpu_step} {rid}' on a GPU"
    if rid in unrecorded:
        return (f"an older source, and today's has no compile facts to tell whether its machine code changed: run "
                f"'epldb compile --record {rid}' (no GPU; rows whose machine code did not change stay fresh), then "
                f"{again} for the rest")
    return f"a kernel whose machine code has changed since; run {again}"


def _stale_timings(df: "pandas.DataFrame", r: "Realization") -> int:
    """How many (device, declared point, shape) keys have bench timings, all of them stale."""
    if not len(df):
        return 0
    timed = df[(df["subject"] == r.id) & (df["kind"] == "realization") & df["time_ms_median"].notna()]
    if not len(timed) or not timed["stale"].astype(bool).any():
        return 0
    declared = {canonical_json(p) for p in r.points()}
    timed = timed[timed["params"].isin(declared)]
    fresh_any = (~timed["stale"].astype(bool)).groupby([timed["device"], timed["params"], timed["shape"]]).any()
    return int((~fresh_any).sum())
