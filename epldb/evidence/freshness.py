"""Whether a measured row still describes the kernel the repository builds today (the lint rule
``evidence-fresh`` is built on it: epldb.evidence.status).

A realization row is fresh when it measured the machine code the repository compiles today: its
``source_hash`` is the kernel's current content hash (the kernel and every repository header it
includes), or the committed compile facts (epldb.evidence.static) show that, on the row's target
and at its parameter point, the source it measured and today's compile to the same SASS (a comment
or a refactor keeps its evidence). A point that only gained entries keeps the rows of shapes where
none of them runs: a step's new ``split_entry`` (rows off 16-byte boundaries) runs only where its
``unaligned_when`` is nonzero, so the rows of aligned shapes measured the aligned entry, unchanged.
Otherwise, or when the realization is gone from the catalog, it is stale: re-measure pending. Peer
and ceiling rows are never stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from epldb.evidence.row import canonical_json


if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.records import Realization


def current_hashes(root: Path, catalog: "Catalog") -> dict[str, str]:
    """Realization id → content hash of its kernel and includes, as the repository stands."""
    from epldb.compile.hashing import source_hashes

    by_kernel = source_hashes(root, [r.kernel.source for r in catalog.realizations.values()])
    return {rid: by_kernel[r.kernel.source] for rid, r in catalog.realizations.items()}


def stale_mask(df: "pandas.DataFrame", catalog: "Catalog") -> "pandas.Series":
    """True for each realization (or sanitizer) row of ``df`` that no longer describes the
    repository's kernel."""
    from epldb.evidence.static import MACHINE_CODE_COLUMNS, code_classes, load_facts, recorded_source_hashes

    hashes = current_hashes(catalog.root, catalog)
    is_real = df["kind"] == "realization"
    current = df["subject"].map(hashes)
    differs = current.isna() | (df["source_hash"] != current)
    # A sanitizer row (epldb/sanitize.py) holds for the source it watched, whatever the machine code.
    stale = ((is_real | (df["kind"] == "sanitizer")) & differs).astype(bool)
    changed = stale & is_real & current.notna()
    if not changed.any():
        return stale
    # Only a row whose measured source has recorded facts can have measured today's machine code.
    changed &= df["source_hash"].isin(list(recorded_source_hashes(catalog.root)))
    if not changed.any():
        return stale
    facts = load_facts(catalog.root, MACHINE_CODE_COLUMNS)
    codes: dict[str, dict[tuple[str, str, str], dict[str, int]]] = {}
    names: dict[str, set[str]] = {}
    columns = ["subject", "target", "params", "source_hash"]
    rows = df.loc[changed, columns].astype(object)
    keys = rows.drop_duplicates()
    same, gained = [], []
    for key in keys.itertuples(index=False, name=None):
        if key[0] not in codes:  # once per realization
            r = catalog.realizations.get(key[0])
            codes[key[0]] = code_classes(facts.machine_code(key[0]))
            names[key[0]] = set(r.points()[0]) if r is not None and r.points() else set()
        verdict = _machine_code_verdict(codes[key[0]], names[key[0]], *key[1:], hashes.get(key[0], ""))
        same.append(verdict == "same")
        gained.append(verdict if verdict not in ("same", "changed") else "")
    # Each changed row takes its key's verdict (a join: the rows are many, their keys a few thousand).
    joined = rows.merge(keys.assign(_same=same, _gained=gained), on=columns, how="left")
    verdict = joined["_same"].to_numpy(dtype=bool, copy=True)
    # Points that only gained split entries: fresh where the row's shape keeps the aligned entry.
    gaining = (joined["_gained"] != "").to_numpy().nonzero()[0]
    if len(gaining):
        shapes = df.loc[changed, "shape"].to_numpy()
        runs: dict[tuple[str, str, str, str], bool] = {}
        for i in gaining:
            k = (str(joined["subject"].iat[i]), str(joined["_gained"].iat[i]), str(shapes[i]), str(joined["params"].iat[i]))
            if k not in runs:
                r = catalog.realizations.get(k[0])
                runs[k] = r is not None and _aligned_entry_runs(r, k[1].split(","), k[2], k[3])
            verdict[i] = runs[k]
    stale.loc[changed] = ~verdict
    return stale


def _machine_code_verdict(code: dict[tuple[str, str, str], dict[str, int]], point_names: set[str],
                          target: str, params: str, measured: str, current: str) -> str:
    """'same' when the row's point compiled to the same machine code from the measured source and
    from today's, entry by entry (``code``: static.code_classes); the gained entries' names joined by
    commas when today's build only adds entries to the measured one; else 'changed' (or not recorded)."""
    try:
        point = canonical_json({k: v for k, v in json.loads(params).items() if k in point_names})
    except ValueError:
        return "changed"
    before, now = code.get((target, point, measured)), code.get((target, point, current))
    if not before or not now or not set(before) <= set(now):
        return "changed"
    if not all(before[e] == now[e] for e in before):
        return "changed"
    gained = sorted(set(now) - set(before))
    return ",".join(gained) if gained else "same"


def _aligned_entry_runs(r: "Realization", gained: list[str], shape_json: str, params: str) -> bool:
    """Whether, at this shape and point, no gained entry is one a launch step takes: each is a step's
    split entry and that step's ``unaligned_when`` is zero there (the aligned entry runs)."""
    from epldb.launch.env import plan_env
    from epldb.launch.expr import ExprError, evaluate, parse

    try:
        env = plan_env(json.loads(shape_json), json.loads(params))
    except (TypeError, ValueError):
        return False
    for name in gained:
        steps = [s for s in (r.launch or {}).get("steps", ()) if s.get("split_entry") == name]
        if not steps:
            return False  # an entry no step takes apart from the aligned one: it may run anywhere
        for step in steps:
            expr = parse(step.get("unaligned_when", 0))
            value = evaluate(expr, env) if not isinstance(expr, ExprError) else expr
            if isinstance(value, ExprError) or value != 0:
                return False
    return True


