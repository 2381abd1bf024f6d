"""Compile facts as committed evidence: per realization × target × parameter point × entry, what the
compiler made of the kernel, keyed by the kernel's source hash and the toolchain.

Layout: ``evidence/static/<realization-id>.parquet``, one file a realization, holding every
(target, point, entry) it was compiled at, for every source hash it was recorded at (append-only:
recording a changed kernel adds rows; the older ones stay, because evidence measured on the older
kernel is judged by them, epldb.evidence.freshness). Columns: ``realization``, ``target``,
``entry``, ``point`` (canonical JSON), ``expression``, ``lowered_name``, ``source_hash``,
``toolchain`` (canonical JSON: NVRTC, headers, CCCL and nvdisasm versions), ``registers``,
``static_shared_bytes``, ``stack_bytes``, ``spill_store_bytes``, ``spill_load_bytes``,
``barriers``, ``sass`` and ``sass_variants`` (JSON opcode histograms), ``sass_sha256`` (of the
function's instructions: equal hashes mean the same machine code), ``claims`` (passed | failed:
the record's machine-code claims on this build), ``problems`` (JSON list of the build's
located problems), ``ptx_sha256`` (of the function's PTX, epldb.compile.ptx: what CI compiles
to, since on one toolchain equal PTX means equal machine code; null on rows recorded before it) and
``sass_code_sha256`` (of the instructions with branch labels renumbered per function, which
nvdisasm numbers over the module; null on rows recorded before it).

``epldb compile --record`` writes them; the site, ``show`` and freshness read them, so a fresh
clone renders its pages without NVRTC; CI compiles every instantiation and fails when the committed
facts are not what the toolchain it pins produces (tests/compile/test_catalog_builds.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.evidence.row import canonical_json
from epldb.evidence.store import write_parquet_atomic

if TYPE_CHECKING:
    import pyarrow

STATIC_DIR = "evidence/static"
INT_COLUMNS = ("registers", "static_shared_bytes", "stack_bytes", "spill_store_bytes", "spill_load_bytes", "barriers")
TEXT_COLUMNS = ("realization", "target", "entry", "point", "expression", "lowered_name", "source_hash", "toolchain",
                "sass", "sass_variants", "sass_sha256", "claims", "problems", "ptx_sha256", "sass_code_sha256")
KEY = ("target", "entry", "point", "source_hash", "toolchain")


def facts_path(root: Path, realization_id: str) -> Path:
    return Path(root) / STATIC_DIR / f"{realization_id}.parquet"


def _schema() -> "pyarrow.Schema":
    import pyarrow as pa

    return pa.schema([*((c, pa.string()) for c in TEXT_COLUMNS[:8]), *((c, pa.int64()) for c in INT_COLUMNS),
                      *((c, pa.string()) for c in TEXT_COLUMNS[8:])])


def toolchain_id(tc: Any) -> str:
    """The toolchain a build's facts depend on, as canonical JSON."""
    return canonical_json({"nvrtc": tc.nvrtc_version, "headers": tc.headers_version, "cccl": tc.cccl_version,
                           "nvdisasm": tc.nvdisasm_version})


def rows_of(build: Any, toolchain: str) -> list[dict[str, Any]]:
    """The facts rows of one RealizationBuild (a compiled one: failed builds record nothing)."""
    problems = [p.as_dict() for p in build.problems]
    failed = any(p["severity"] == "error" and str(p["json_path"]).startswith("$.claims") for p in problems)
    return [{
        "realization": build.realization_id, "target": build.target, "entry": e.entry,
        "point": canonical_json(e.point), "expression": e.expression, "lowered_name": e.lowered_name,
        "source_hash": build.source_hash, "toolchain": toolchain,
        **{c: int(getattr(e, c)) for c in INT_COLUMNS},
        "sass": canonical_json(e.sass), "sass_variants": canonical_json(e.sass_variants), "sass_sha256": e.sass_sha256,
        "claims": "failed" if failed else "passed", "problems": canonical_json(problems),
        "ptx_sha256": e.ptx_sha256 or None, "sass_code_sha256": e.sass_code_sha256 or None,
    } for e in build.entries]


def read_facts(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    if not path.is_file():
        return []
    return pq.read_table(path).to_pylist()


def write_facts(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa

    rows = sorted(rows, key=lambda r: tuple(str(r[k]) for k in KEY))
    write_parquet_atomic(path, pa.Table.from_pylist(rows, schema=_schema()))


def record(root: Path, builds: Iterable[Any], toolchain: str) -> dict[str, int]:
    """Add the facts of ``builds`` to each realization's file; rows already there (same key) are
    kept as they are, except that the PTX and label-free SASS hashes they lack are filled in (those
    columns came later).
    Returns realization id → rows added or filled in."""
    by_realization: dict[str, list[Any]] = {}
    for b in builds:
        if b.cubin is not None and b.entries:
            by_realization.setdefault(b.realization_id, []).append(b)
    added: dict[str, int] = {}
    for rid, bs in sorted(by_realization.items()):
        path = facts_path(root, rid)
        rows = read_facts(path)
        known = {tuple(str(r[k]) for k in KEY): r for r in rows}
        new, filled = [], 0
        for r in (r for b in bs for r in rows_of(b, toolchain)):
            old = known.get(tuple(str(r[k]) for k in KEY))
            if old is None:
                new.append(r)
            else:
                gaps = [c for c in ("ptx_sha256", "sass_code_sha256") if not old.get(c) and r[c]]
                for c in gaps:
                    old[c] = r[c]
                filled += bool(gaps)
        if new or filled:
            write_facts(path, rows + new)
        added[rid] = len(new) + filled
    return added


@dataclass(frozen=True)
class Facts:
    """The committed facts of every realization, indexed for the readers."""

    rows: dict[str, list[dict[str, Any]]]  # realization id → its rows

    def of(self, realization_id: str, target: str, source_hash: str) -> list[dict[str, Any]]:
        return [r for r in self.rows.get(realization_id, ()) if r["target"] == target and r["source_hash"] == source_hash]

    def source_hashes(self) -> dict[str, set[str]]:
        """Realization id → the source hashes its facts were recorded at."""
        return {rid: {r["source_hash"] for r in rows} for rid, rows in self.rows.items()}

    def machine_code(self, realization_id: str) -> dict[tuple[str, str, str], dict[str, tuple[str, ...]]]:
        """(target, point JSON, source hash) → entry → (PTX hash, SASS hash, label-free SASS hash)
        ("" where not recorded). Two builds of an entry have the same machine code when any of the
        three is equal: ptxas makes the code from the PTX, its options and the toolchain, all in the
        facts' key (block labels renumbered per function, epldb/compile/ptx.py); the SASS is the
        code. None is necessary: NVVM's PTX names a function's shared variables after the
        function's template arguments, which a refactor may change for the same code, and
        nvdisasm numbers branch labels over the whole module, so the plain SASS hash moves when
        another entry joins the program (the label-free one does not; code_classes)."""
        out: dict[tuple[str, str, str], dict[str, tuple[str, ...]]] = {}
        for r in self.rows.get(realization_id, ()):
            out.setdefault((r["target"], r["point"], r["source_hash"]), {})[r["entry"]] = (
                r.get("ptx_sha256") or "", r["sass_sha256"] or "", r.get("sass_code_sha256") or "")
        return out


def _files(root: Path) -> list[str]:
    base = Path(root) / STATIC_DIR
    return sorted(str(p) for p in base.rglob("*.parquet")) if base.is_dir() else []


def code_classes(code: dict[tuple[str, str, str], dict[str, tuple[str, ...]]]) -> dict[tuple[str, str, str], dict[str, int]]:
    """Facts.machine_code with each build's hashes replaced by its machine code's class: builds of one
    (target, point, entry) that share a hash of one kind are one class, transitively. Sameness is an
    equivalence, so a chain counts: a row measured before the PTX and label-free hashes were
    recorded matches a later source by its plain SASS hash, and that one today's by another hash."""
    parent: dict[tuple[str, ...], tuple[str, ...]] = {}

    def find(node: tuple[str, ...]) -> tuple[str, ...]:
        root = node
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[node] != root:  # path compression
            parent[node], node = root, parent[node]
        return root

    for (target, point, source), entries in code.items():
        for entry, digests in entries.items():
            build = find(("build", target, point, entry, source))
            for kind, digest in enumerate(digests):
                if digest:
                    parent[build] = find((str(kind), target, point, entry, digest))
                    build = find(build)
    ids: dict[tuple[str, ...], int] = {}
    return {key: {entry: ids.setdefault(find(("build", *key[:2], entry, key[2])), len(ids)) for entry in entries}
            for key, entries in code.items()}


def recorded_source_hashes(root: Path) -> set[str]:
    """Every source hash some facts were recorded at (one column read: cheap)."""
    import pyarrow.dataset as ds

    files = _files(root)
    if not files:
        return set()
    column = ds.dataset(files, schema=_schema(), format="parquet").to_table(columns=["source_hash"]).column(0)
    return set(column.unique().to_pylist())


#: The columns :meth:`Facts.machine_code` reads.
MACHINE_CODE_COLUMNS = ("realization", "target", "point", "source_hash", "entry", "sass_sha256", "ptx_sha256",
                        "sass_code_sha256")


def load_facts(root: Path, columns: Sequence[str] | None = None) -> Facts:
    """Every committed facts file under ``root/evidence/static`` (only ``columns`` of each row, if
    given: reading the six of MACHINE_CODE_COLUMNS takes a fraction of the time of all)."""
    import pyarrow.dataset as ds

    files = _files(root)
    if not files:
        return Facts({})
    rows: dict[str, list[dict[str, Any]]] = {}
    table = ds.dataset(files, schema=_schema(), format="parquet").to_table(columns=list(columns) if columns else None)
    for r in table.to_pylist():
        rows.setdefault(r["realization"], []).append(r)
    return Facts(rows)


def build_from_facts(realization: Any, target: str, rows: list[dict[str, Any]]) -> Any:
    """A RealizationBuild rebuilt from committed facts (no cubin: nothing to run, everything to show)."""
    from epldb.compile.build import EntryBuild, RealizationBuild
    from epldb.problems import Location, Problem

    problems = json.loads(rows[0]["problems"]) if rows else []
    entries = tuple(EntryBuild(
        entry=r["entry"], point=json.loads(r["point"]), expression=r["expression"], lowered_name=r["lowered_name"],
        **{c: int(r[c]) for c in INT_COLUMNS}, sass=json.loads(r["sass"]), sass_variants=json.loads(r["sass_variants"]),
        sass_sha256=r["sass_sha256"]) for r in rows)
    toolchain = json.loads(rows[0]["toolchain"]) if rows else {}
    return RealizationBuild(
        realization_id=realization.id, target=target, nvrtc_version=str(toolchain.get("nvrtc") or ""),
        source_hash=rows[0]["source_hash"] if rows else "", cubin=b"", entries=entries,
        problems=tuple(Problem(Location(p["file"], p["line"], p["col"]), p["message"], p["rule"], p["json_path"],
                               p["severity"]) for p in problems),
        cached=True)
