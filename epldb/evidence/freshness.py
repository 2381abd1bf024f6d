"""Whether a measured row still describes the kernel the repository builds today (the lint rule
``evidence-fresh`` is built on it: epldb.evidence.status).

A realization row is fresh when it measured the machine code the repository compiles today: its
``source_hash`` is the kernel's current content hash (the kernel and every repository header it
includes), or the committed compile facts (epldb.evidence.static) show that, on the row's target
and at its parameter point, the source it measured and today's compile to the same SASS (a comment
or a refactor keeps its evidence). A point whose entries changed or were gained keeps the rows of
shapes where none of those entries runs: a step's ``split_entry`` (rows off 16-byte boundaries) runs
only where its ``unaligned_when`` is nonzero, so the rows of aligned shapes measured the aligned
entry, unchanged. A sanitizer row watched every entry of every point it verified, so it keeps only
when each point of its target compiles to the same machine code, entry by entry. Otherwise, or when
the realization is gone from the catalog, a row is stale: re-measure pending. Peer and ceiling rows
are never stale. A row of a point measured before its realization gained a parameter (gemm/tma-wgmma's
rows of {bn, stages} once it had bm) takes the one point of today's space that extends it and
compiles to the machine code it measured (rekey_grown_points), and keeps its evidence by that proof.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from epldb.evidence.row import canonical_json


if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.evidence.static import Facts
    from epldb.records import Realization


def current_hashes(root: Path, catalog: "Catalog") -> dict[str, str]:
    """Realization id → content hash of its kernel and includes, as the repository stands."""
    from epldb.compile.hashing import source_hashes

    by_kernel = source_hashes(root, [r.kernel.source for r in catalog.realizations.values()])
    return {rid: by_kernel[r.kernel.source] for rid, r in catalog.realizations.items()}


def stale_mask(df: "pandas.DataFrame", catalog: "Catalog", facts: "Facts | None" = None) -> "pandas.Series":
    """True for each realization (or sanitizer) row of ``df`` that no longer describes the
    repository's kernel. ``facts``: the committed compile facts (MACHINE_CODE_COLUMNS) where the
    caller has read them already."""
    from epldb.evidence.static import MACHINE_CODE_COLUMNS, code_classes, load_facts, recorded_source_hashes

    hashes = current_hashes(catalog.root, catalog)
    is_real = df["kind"] == "realization"
    is_sanitizer = df["kind"] == "sanitizer"  # epldb/sanitize.py: one row per (realization, tool)
    current = df["subject"].map(hashes)
    differs = current.isna() | (df["source_hash"] != current)
    stale = ((is_real | is_sanitizer) & differs).astype(bool)
    changed = stale & current.notna()
    if not changed.any():
        return stale
    # Only a row whose measured source has recorded facts can have measured today's machine code.
    changed &= df["source_hash"].isin(list(recorded_source_hashes(catalog.root)))
    if not changed.any():
        return stale
    facts = facts if facts is not None else load_facts(catalog.root, MACHINE_CODE_COLUMNS)
    codes: dict[str, dict[tuple[str, str, str], dict[str, int]]] = {}

    def code_of(rid: str) -> dict[tuple[str, str, str], dict[str, int]]:
        if rid not in codes:  # once per realization
            codes[rid] = code_classes(facts.machine_code(rid))
        return codes[rid]

    watched = changed & is_sanitizer
    for rid, target, measured in df.loc[watched, ["subject", "target", "source_hash"]].drop_duplicates().itertuples(
            index=False, name=None):
        keeps = _every_point_same(code_of(rid), str(target), str(measured), hashes[rid])
        at = watched & (df["subject"] == rid) & (df["target"] == target) & (df["source_hash"] == measured)
        stale.loc[at] = not keeps
    changed &= is_real
    if not changed.any():
        return stale
    names: dict[str, set[str]] = {}
    columns = ["subject", "target", "params", "source_hash"]
    rows = df.loc[changed, columns].astype(object)
    keys = rows.drop_duplicates()
    same, moved = [], []
    for key in keys.itertuples(index=False, name=None):
        if key[0] not in names:
            r = catalog.realizations.get(key[0])
            names[key[0]] = set(r.points()[0]) if r is not None and r.points() else set()
        verdict = _machine_code_verdict(code_of(key[0]), names[key[0]], *key[1:], hashes.get(key[0], ""))
        same.append(verdict == "same")
        moved.append(verdict if verdict not in ("same", "changed") else "")
    # Each changed row takes its key's verdict (a join: the rows are many, their keys a few thousand).
    joined = rows.merge(keys.assign(_same=same, _moved=moved), on=columns, how="left")
    verdict = joined["_same"].to_numpy(dtype=bool, copy=True)
    # Points whose split entries alone changed or joined: fresh where the row's shape keeps the
    # aligned entry.
    moving = (joined["_moved"] != "").to_numpy().nonzero()[0]
    if len(moving):
        shapes = df.loc[changed, "shape"].to_numpy()
        runs: dict[tuple[str, str, str, str], bool] = {}
        for i in moving:
            k = (str(joined["subject"].iat[i]), str(joined["_moved"].iat[i]), str(shapes[i]), str(joined["params"].iat[i]))
            if k not in runs:
                r = catalog.realizations.get(k[0])
                runs[k] = r is not None and _aligned_entry_runs(r, k[1].split(","), k[2], k[3])
            verdict[i] = runs[k]
    stale.loc[changed] = ~verdict
    return stale


def _every_point_same(code: dict[tuple[str, str, str], dict[str, int]], target: str, measured: str,
                      current: str) -> bool:
    """Whether the measured source and today's compile, at this target, the same points to the same
    machine code entry by entry (``code``: static.code_classes): what a sanitizer row watched."""
    before = {point: entries for (t, point, source), entries in code.items() if t == target and source == measured}
    now = {point: entries for (t, point, source), entries in code.items() if t == target and source == current}
    return bool(before) and before == now


def _machine_code_verdict(code: dict[tuple[str, str, str], dict[str, int]], point_names: set[str],
                          target: str, params: str, measured: str, current: str) -> str:
    """'same' when the row's point compiled to the same machine code from the measured source and
    from today's, entry by entry (``code``: static.code_classes); else, when today's build keeps every
    entry of the measured one, the names of the entries it changed or added, joined by commas (the
    row stays fresh where its shape runs none of them: _aligned_entry_runs); else 'changed' (or not
    recorded)."""
    try:
        point = canonical_json({k: v for k, v in json.loads(params).items() if k in point_names})
    except ValueError:
        return "changed"
    before, now = code.get((target, point, measured)), code.get((target, point, current))
    if not before or not now or not set(before) <= set(now):
        return "changed"
    moved = sorted(e for e in now if e not in before or before[e] != now[e])
    return ",".join(moved) if moved else "same"


def _aligned_entry_runs(r: "Realization", moved: list[str], shape_json: str, params: str) -> bool:
    """Whether, at this shape and point, no moved entry (changed or gained) is one a launch step
    takes: each is a step's split entry and that step's ``unaligned_when`` is zero there (the aligned
    entry runs)."""
    from epldb.launch.env import plan_env
    from epldb.launch.expr import ExprError, evaluate, parse

    try:
        env = plan_env(json.loads(shape_json), json.loads(params))
    except (TypeError, ValueError):
        return False
    for name in moved:
        steps = [s for s in (r.launch or {}).get("steps", ()) if s.get("split_entry") == name]
        if not steps:
            return False  # an entry no step takes apart from the aligned one: it may run anywhere
        for step in steps:
            expr = parse(step.get("unaligned_when", 0))
            value = evaluate(expr, env) if not isinstance(expr, ExprError) else expr
            if isinstance(value, ExprError) or value != 0:
                return False
    return True


def rekey_grown_points(df: "pandas.DataFrame", catalog: "Catalog") -> "tuple[pandas.Series, Facts | None]":
    """Rows of a point measured before its realization gained a parameter, given today's point.

    A realization row whose ``params`` name a strict subset of today's parameters describes no
    point of today's space by its key. Where exactly one of today's points that extends it compiles,
    at the row's target and today's source, to the machine code the row measured (every entry; any
    of the PTX, SASS and label-free SASS hashes equal: static.Facts.machine_code), the row is that
    point's: its ``params`` are rewritten in ``df`` (never in the file), and it is as fresh as the
    code says. Rows with no such point stay as they are (stale_mask judges them). Returns the mask
    of the rewritten rows, and the facts where it read them (for stale_mask)."""
    import pandas as pd

    from epldb.evidence.static import MACHINE_CODE_COLUMNS, load_facts

    none = pd.Series(False, index=df.index)
    real = df["kind"] == "realization"
    if not real.any():
        return none, None
    grown: dict[tuple[str, str], dict[str, object]] = {}  # (subject, params) → the row's point, where it lacks names
    for subject, params in df.loc[real, ["subject", "params"]].astype(str).drop_duplicates().itertuples(index=False):
        r = catalog.realizations.get(subject)
        if r is None or not r.params:
            continue
        try:
            point = json.loads(params)
        except ValueError:
            continue
        if isinstance(point, dict) and set(point) < set(r.params):
            grown[(subject, params)] = point
    if not grown:
        return none, None
    hashes = current_hashes(catalog.root, catalog)
    facts = load_facts(catalog.root, MACHINE_CODE_COLUMNS)
    codes: dict[str, dict[tuple[str, str, str], dict[str, tuple[str, ...]]]] = {}
    mapping: dict[tuple[str, str, str, str], str] = {}  # (subject, target, params, source) → today's params
    rows = df.loc[real, ["subject", "target", "params", "source_hash"]].astype(str).drop_duplicates()
    for subject, target, params, source in rows.itertuples(index=False):
        point = grown.get((subject, params))
        if point is None:
            continue
        if subject not in codes:
            codes[subject] = facts.machine_code(subject)
        code = codes[subject]
        measured = code.get((target, canonical_json(point), source))
        if not measured:
            continue
        same = []
        for candidate in catalog.realizations[subject].points():
            if any(candidate.get(k) != v for k, v in point.items()):
                continue
            now = code.get((target, canonical_json(candidate), hashes[subject]))
            if now and set(now) == set(measured) and all(
                    any(a and a == b for a, b in zip(measured[e], now[e])) for e in measured):
                same.append(candidate)
        if len(same) == 1:
            mapping[(subject, target, params, source)] = canonical_json(same[0])
    if not mapping:
        return none, facts
    new = [mapping.get(k) for k in zip(df["subject"].astype(str), df["target"].astype(str),
                                       df["params"].astype(str), df["source_hash"].astype(str))]
    moved = pd.Series([n is not None for n in new], index=df.index)
    df.loc[moved, "params"] = [n for n in new if n is not None]
    return moved, facts
