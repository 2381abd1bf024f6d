"""Machine-code claims of a realization, checked against every build of it.

A record says what its machine code must look like (``claims: {sass: {require: [SHFL], forbid:
[LDL, STL]}, max_registers: 64, no_spills: true}``). Each entry at each point must honour each
claim (``require`` only the entries of ``require_entries`` where it names some); a failure is an
error located at the claim's own line in the record.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

from epldb.problems import Problem, json_path
from epldb.records import Realization, point_text

if TYPE_CHECKING:
    from epldb.compile.build import EntryBuild


def _point(point: dict) -> str:
    return point_text(point, sep=", ", empty="no parameters")


def check_claims(
    realization: Realization, entries: Sequence["EntryBuild"], target: str, *, sass_available: bool = True
) -> list[Problem]:
    """One problem per claim, entry and point that fails; none when every claim holds (the
    commands merge a claim's failures at every point into one message: problems.merge_repeats)."""
    claims = realization.claims
    out: list[Problem] = []

    def fail(where: tuple[str | int, ...], rule: str, message: str) -> None:
        out.append(Problem(realization.loc(*where), message, rule, json_path(where)))

    names = [e.name for e in realization.kernel.entries]
    for i, name in enumerate(claims.sass_require_entries):
        if name not in names:
            fail(("claims", "sass", "require_entries", i), "sass-claim",
                 f"require_entries names '{name}', which is not one of kernel.entries ({', '.join(names)})")
    for e in entries:
        at = f"(entry {e.entry}, point {_point(e.point)})"
        if sass_available:
            for i, op in enumerate(claims.sass_require):
                if op in claims.requires_of(e.entry) and e.sass.get(op, 0) == 0:
                    fail(("claims", "sass", "require", i), "sass-claim",
                         f"SASS claim requires {op} but {e.expression} contains no {op} on {target} {at}: "
                         "make the kernel use it or drop the claim")
            for i, op in enumerate(claims.sass_forbid):
                if (n := e.sass.get(op, 0)) > 0:
                    fail(("claims", "sass", "forbid", i), "sass-claim",
                         f"SASS claim forbids {op} but {e.expression} contains {n} {op} on {target} {at}: "
                         "remove them from the kernel or drop the claim")
        if claims.max_registers is not None and e.registers > claims.max_registers:
            fail(("claims", "max_registers"), "register-claim",
                 f"claim max_registers {claims.max_registers} but {e.expression} uses {e.registers} registers on {target} {at}: "
                 "raise the claim or use fewer registers")
        if claims.no_spills and (e.spill_store_bytes or e.spill_load_bytes):
            fail(("claims", "no_spills"), "spill-claim",
                 f"claim no_spills but {e.expression} spills {e.spill_store_bytes} bytes stored, {e.spill_load_bytes} loaded on {target} {at}: "
                 "cut the register pressure or drop the claim")
    return out


def sass_unavailable_problem(realization: Realization, target: str) -> list[Problem]:
    """Say that SASS claims went unchecked; an error on CI, where nvdisasm must be present."""
    claims = realization.claims
    if not (claims.sass_require or claims.sass_forbid):
        return []
    where = ("claims", "sass")
    severity = "error" if os.environ.get("CI") else "warning"
    return [
        Problem(realization.loc(*where), f"SASS claims not checked on {target}: nvdisasm is unavailable", "sass-unavailable", json_path(where), severity)
    ]
