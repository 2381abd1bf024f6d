"""Static evidence of a realization, summarized per target from its builds (``epldb.compile``).

A build is used only through the attributes its room promises (``entries`` with registers, shared
memory, stack, spills, barriers and a SASS histogram; ``problems``), so a build of another shape
still renders, and a missing one is a sentence instead of a build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from epldb.records import Realization, point_text

#: Opcodes shown for every build: the ones that decide reductions, staging and streaming kernels.
KEY_OPCODES = ("SHFL", "BAR", "LDS", "STS", "LDG", "STG", "LDGSTS", "ATOMS", "RED", "LDL", "STL")


@dataclass(frozen=True)
class TargetSummary:
    target: str
    builds: int
    registers: tuple[int, int]
    shared: tuple[int, int]
    stack: int
    spill_bytes: int
    barriers: tuple[int, int]
    errors: int
    nvrtc: str

    def line_html(self) -> str:
        """One short line: '20–32 regs · 16–128 B · no spills'."""
        spills = "no spills" if self.spill_bytes == 0 else f'<strong class="epl-bad">{self.spill_bytes} B spilled</strong>'
        return f"{_range(self.registers)} regs · {_range(self.shared)} B · {spills}"

    def cell_html(self) -> str:
        """Three short lines for a comparison table cell."""
        spills = "no spills" if self.spill_bytes == 0 else f'<strong class="epl-bad">{self.spill_bytes} B spilled</strong>'
        return (f'<span class="epl-nowrap-plain">{_range(self.registers)} regs</span><br>'
                f'<span class="epl-nowrap-plain">{_range(self.shared)} B smem</span><br>{spills}')

    def cell(self) -> str:
        """Compact text for a comparison table cell."""
        r = _range(self.registers)
        s = _range(self.shared)
        spills = "no spills" if self.spill_bytes == 0 else f"{self.spill_bytes} B spilled"
        return f"{r} regs · {s} B smem · {spills}"


def _range(pair: tuple[int, int]) -> str:
    return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}–{pair[1]}"


def entries_of(build: Any) -> list[Any]:
    return list(getattr(build, "entries", ()) or ())


def is_build(build: Any) -> bool:
    return build is not None and not isinstance(build, str)


def summarize(target: str, build: Any) -> TargetSummary | None:
    if not is_build(build):
        return None
    es = entries_of(build)
    errors = sum(1 for p in getattr(build, "problems", ()) if getattr(p, "severity", "error") == "error")
    if not es:
        return None
    regs = [int(e.registers) for e in es]
    smem = [int(e.static_shared_bytes) for e in es]
    bars = [int(e.barriers) for e in es]
    return TargetSummary(
        target=target,
        builds=len(es),
        registers=(min(regs), max(regs)),
        shared=(min(smem), max(smem)),
        stack=max(int(e.stack_bytes) for e in es),
        spill_bytes=sum(int(e.spill_store_bytes) + int(e.spill_load_bytes) for e in es),
        barriers=(min(bars), max(bars)),
        errors=errors,
        nvrtc=str(getattr(build, "nvrtc_version", "") or ""),
    )


def why_missing(build: Any) -> str:
    """A sentence for a target with no usable build."""
    if build is None:
        return "not compiled"
    if isinstance(build, str):
        return build
    problems = [p for p in getattr(build, "problems", ()) if getattr(p, "severity", "error") == "error"]
    if problems:
        return "build failed: " + getattr(problems[0], "message", str(problems[0]))
    return "no entries were built"


@dataclass(frozen=True)
class ClaimResult:
    claim: str
    per_target: dict[str, tuple[bool | None, str]]  # target → (passed, detail)


def claim_results(r: Realization, builds: dict[str, Any]) -> list[ClaimResult]:
    """Each machine-code claim of ``r`` checked on every build of every target."""
    claims: list[tuple[str, Any]] = []
    for op in r.claims.sass_require:
        claims.append((f"SASS contains {op}", ("require", op)))
    for op in r.claims.sass_forbid:
        claims.append((f"SASS has no {op}", ("forbid", op)))
    if r.claims.max_registers is not None:
        claims.append((f"at most {r.claims.max_registers} registers", ("regs", r.claims.max_registers)))
    if r.claims.no_spills:
        claims.append(("no spills", ("spills", None)))
    out: list[ClaimResult] = []
    for label, (kind, arg) in claims:
        per: dict[str, tuple[bool | None, str]] = {}
        for target in r.targets:
            build = builds.get(target)
            es = entries_of(build) if is_build(build) else []
            if not es:
                per[target] = (None, why_missing(build))
                continue
            if kind in ("require", "forbid") and not any(e.sass for e in es):
                per[target] = (None, "SASS not inspected (nvdisasm unavailable)")
                continue
            if kind == "require":
                es = [e for e in es if arg in r.claims.requires_of(e.entry)]  # require_entries
                bad = [e for e in es if e.sass.get(arg, 0) == 0]
            elif kind == "forbid":
                bad = [e for e in es if e.sass.get(arg, 0) > 0]
            elif kind == "regs":
                bad = [e for e in es if e.registers > arg]
            else:
                bad = [e for e in es if e.spill_store_bytes or e.spill_load_bytes]
            detail = f"{len(es)} of {len(es)} builds" if not bad else \
                f"fails in {len(bad)} of {len(es)} builds, e.g. {point_label(bad[0].point)}"
            per[target] = (not bad, detail)
        out.append(ClaimResult(label, per))
    return out


def point_label(point: dict[str, Any]) -> str:
    return point_text(point, empty="(no parameters)")


def opcode_totals(es: list[Any]) -> dict[str, int]:
    """Opcode → count in the first build of ``es`` (one representative point)."""
    return dict(es[0].sass) if es else {}
