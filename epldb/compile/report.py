"""Builds for people (a fixed-width table) and for machines (JSON-able dicts).

The table shows one row per realization × target × entry × point with the resources ptxas
reports and the SASS facts that decide most reductions and streaming kernels: shuffles, barriers,
shared-memory loads and stores, shared and global atomics, and global loads by access width.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterable

from epldb.compile.build import EntryBuild, RealizationBuild
from epldb.compile.sass import widths
from epldb.records import point_text

# SASS opcodes counted in the table, in column order.
KEY_OPCODES = ("SHFL", "BAR", "LDS", "STS", "ATOMS", "RED")


def _point(point: dict) -> str:
    return point_text(point, empty="-")


def _widths(e: EntryBuild, op: str) -> str:
    w = widths(e.sass_variants, op)
    return " ".join(f"{bits}:{n}" for bits, n in w.items()) or "0"


def _row(b: RealizationBuild, e: EntryBuild) -> list[str]:
    have_sass = bool(e.sass)
    return [
        b.realization_id,
        b.target,
        e.entry,
        _point(e.point),
        str(e.registers),
        str(e.static_shared_bytes),
        str(e.stack_bytes),
        f"{e.spill_store_bytes}/{e.spill_load_bytes}",
        str(e.barriers),
        *((str(e.sass.get(op, 0)) if have_sass else "?") for op in KEY_OPCODES),
        _widths(e, "LDG") if have_sass else "?",
    ]


HEADER = ["realization", "target", "entry", "point", "regs", "smem", "stack", "spill st/ld", "bar",
          *KEY_OPCODES, "LDG bits:n"]
_NUMERIC = {"regs", "smem", "stack", "spill st/ld", "bar", *KEY_OPCODES}


def format_table(builds: Iterable[RealizationBuild]) -> str:
    """A fixed-width table; a build that failed gets one row saying so. '?' means SASS unavailable."""
    rows: list[list[str]] = []
    n_builds = n_cached = 0
    seconds = 0.0
    for b in builds:
        n_builds += 1
        n_cached += b.cached
        seconds += b.seconds
        if b.cubin is None:
            errors = sum(p.severity == "error" for p in b.problems)
            rows.append([b.realization_id, b.target, "-", f"FAILED ({errors} error{'s' * (errors != 1)})",
                         *([""] * (len(HEADER) - 4))])
            continue
        rows.extend(_row(b, e) for e in b.entries)
    widths_ = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(HEADER)]

    def line(cells: list[str]) -> str:
        out = [c.rjust(w) if h in _NUMERIC else c.ljust(w) for c, w, h in zip(cells, widths_, HEADER)]
        return "  ".join(out).rstrip()

    text = [line(HEADER), line(["-" * w for w in widths_]), *(line(r) for r in rows)]
    text.append(f"{n_builds} build{'s' * (n_builds != 1)}, {n_cached} from cache, {seconds:.2f} s")
    return "\n".join(text)


def build_as_dict(b: RealizationBuild) -> dict[str, Any]:
    """Everything a build found, JSON-able; the cubin is summarised by its size and sha256."""
    return {
        "realization": b.realization_id,
        "target": b.target,
        "nvrtc_version": b.nvrtc_version,
        "source_hash": b.source_hash,
        "cubin_bytes": len(b.cubin) if b.cubin is not None else None,
        "cubin_sha256": hashlib.sha256(b.cubin).hexdigest() if b.cubin is not None else None,
        "cached": b.cached,
        "seconds": round(b.seconds, 4),
        "ok": b.ok,
        "entries": [e.as_dict() for e in b.entries],
        "problems": [p.as_dict() for p in b.problems],
    }


def builds_as_dicts(builds: Iterable[RealizationBuild]) -> list[dict[str, Any]]:
    return [build_as_dict(b) for b in builds]
