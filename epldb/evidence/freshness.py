"""Whether a measured row still describes the kernel the repository builds today (the lint rule
``evidence-fresh`` is built on it: epldb.evidence.status).

A realization row is fresh when it measured the machine code the repository compiles today: its
``source_hash`` is the kernel's current content hash (the kernel and every repository header it
includes), or the committed compile facts (epldb.evidence.static) show that, on the row's target
and at its parameter point, the source it measured and today's compile to the same machine code,
entry by entry (a comment or a refactor keeps its evidence). Otherwise, or when the realization is
gone from the catalog, it is stale: re-measure pending. Peer and ceiling rows are never stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from epldb.evidence.row import canonical_json


if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog


def current_hashes(root: Path, catalog: "Catalog") -> dict[str, str]:
    """Realization id → content hash of its kernel and includes, as the repository stands."""
    from epldb.compile.hashing import source_hashes

    by_kernel = source_hashes(root, [r.kernel.source for r in catalog.realizations.values()])
    return {rid: by_kernel[r.kernel.source] for rid, r in catalog.realizations.items()}


def stale_mask(df: "pandas.DataFrame", catalog: "Catalog") -> "pandas.Series":
    """True for each realization (or sanitizer) row of ``df`` that no longer describes the
    repository's kernel."""
    from epldb.evidence.static import MACHINE_CODE_COLUMNS, load_facts, recorded_source_hashes

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
    codes: dict[str, dict[tuple[str, str, str], dict[str, tuple[str, str]]]] = {}
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


def _same_machine_code(code: dict[tuple[str, str, str], dict[str, tuple[str, str]]], point_names: set[str],
                       target: str, params: str, measured: str, current: str) -> bool:
    """Whether the row's point on ``target`` compiled from the measured source and from today's to the
    same machine code, entry by entry (static.same_entry_code; False when either is not recorded)."""
    from epldb.evidence.static import same_entry_code

    try:
        point = canonical_json({k: v for k, v in json.loads(params).items() if k in point_names})
    except ValueError:
        return False
    before, now = code.get((target, point, measured)), code.get((target, point, current))
    return bool(before) and bool(now) and set(before) == set(now) and all(
        same_entry_code(before[e], now[e]) for e in before)
