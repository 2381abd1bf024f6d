"""Whether a measured row still describes the kernel the repository builds today, and the lint rule
``evidence-fresh`` built on it.

A realization row is fresh when it measured the machine code the repository compiles today: its
``source_hash`` is the kernel's current content hash (the kernel and every repository header it
includes), or the committed compile facts (epldb.evidence.static) show that, on the row's target
and at its parameter point, the source it measured and today's compile to the same SASS (a comment
or a refactor keeps its evidence). Otherwise, or when the realization is gone from the catalog, it
is stale: re-measure pending. Peer and ceiling rows are never stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from epldb.evidence.row import canonical_json

from epldb.problems import Problem

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog


def current_hashes(root: Path, catalog: "Catalog") -> dict[str, str]:
    """Realization id → content hash of its kernel and includes, as the repository stands."""
    from epldb.compile.hashing import source_hashes

    by_kernel = source_hashes(root, [r.kernel.source for r in catalog.realizations.values()])
    return {rid: by_kernel[r.kernel.source] for rid, r in catalog.realizations.items()}


def stale_mask(df: "pandas.DataFrame", catalog: "Catalog") -> "pandas.Series":
    """True for each realization row of ``df`` that no longer describes the repository's kernel."""
    from epldb.evidence.static import MACHINE_CODE_COLUMNS, load_facts, recorded_source_hashes

    hashes = current_hashes(catalog.root, catalog)
    is_real = df["kind"] == "realization"
    current = df["subject"].map(hashes)
    stale = (is_real & (current.isna() | (df["source_hash"] != current))).astype(bool)
    changed = stale & current.notna()
    if not changed.any():
        return stale
    # Only a row whose measured source has recorded facts can have measured today's machine code.
    changed &= df["source_hash"].isin(list(recorded_source_hashes(catalog.root)))
    if not changed.any():
        return stale
    facts = load_facts(catalog.root, MACHINE_CODE_COLUMNS)
    codes: dict[str, dict[tuple[str, str, str], frozenset[str]]] = {}
    names: dict[str, set[str]] = {}
    columns = ["subject", "target", "params", "source_hash"]
    rows = df.loc[changed, columns].astype(object)
    keys = rows.drop_duplicates()
    same = []
    for key in keys.itertuples(index=False, name=None):
        if key[0] not in codes:  # once per realization
            r = catalog.realizations.get(key[0])
            codes[key[0]] = facts.machine_code(key[0])
            names[key[0]] = set(r.points()[0]) if r is not None and r.points() else set()
        same.append(_same_machine_code(codes[key[0]], names[key[0]], *key[1:], hashes.get(key[0], "")))
    # Each changed row takes its key's verdict (a join: the rows are many, their keys a few thousand).
    verdict = rows.merge(keys.assign(_same=same), on=columns, how="left")["_same"].to_numpy(dtype=bool)
    stale.loc[changed] = ~verdict
    return stale


def _same_machine_code(code: dict[tuple[str, str, str], frozenset[str]], point_names: set[str], target: str,
                       params: str, measured: str, current: str) -> bool:
    """Whether the row's point on ``target`` compiled from the measured source and from today's to the
    same SASS, by the committed facts (False when either is not recorded)."""
    try:
        point = canonical_json({k: v for k, v in json.loads(params).items() if k in point_names})
    except ValueError:
        return False
    before, now = code.get((target, point, measured)), code.get((target, point, current))
    return bool(before) and before == now


RULE = "evidence-fresh"
_FAILED = ("incorrect", "compile-error", "runtime-error")


def evidence_problems(catalog: "Catalog", df: "pandas.DataFrame | None" = None, *, strict: bool = False) -> list[Problem]:
    """A ``verified`` realization needs fresh passing evidence on at least one device, with no
    fresh failure among the newest rows of that device (error at its ``status`` line); every
    ``draft`` realization gets a notice saying what evidence it has."""
    if df is None:
        from epldb.evidence.table import load_evidence

        df = load_evidence(catalog.root, catalog, experiments=False)
    from epldb.evidence.table import newest_fresh

    newest = newest_fresh(df[df["kind"] == "realization"]) if len(df) else df
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
                problems.append(Problem(loc, f"stale, re-measure pending: {stale} row(s) measured a kernel whose "
                                        "machine code has changed since; run 'epldb verify " + rid + "' on a GPU "
                                        "(validate --strict makes this an error)", RULE, "$.status", "warning"))
            elif not devices_ok:
                why = f" ({stale} stale row(s): the kernel changed since they were measured)" if stale else ""
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
