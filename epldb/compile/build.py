"""Compile one realization for one target: every entry × parameter point in one NVRTC program.

One program per (realization, target) holds every filled name expression, so the headers are
parsed once and each instantiation costs only its own code generation. The result carries the
static evidence per entry and point (ptxas resources, SASS histogram), and every problem found on
the way, located: compile errors at the kernel line with the record line that names the kernel,
failed claims at the claim's own line. Builds are cached by content (see ``_key``).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from epldb.catalog import target_profiles
from epldb.compile import cache
from epldb.compile.claims import check_claims, sass_unavailable_problem
from epldb.compile.hashing import source_hash
from epldb.compile.nvrtc import compile_program, default_options, problems_from_log, ptx_options
from epldb.compile.ptx import PTX_HASH_VERSION, function_hashes
from epldb.compile.ptxas import FunctionResources, parse_ptxas_log
from epldb.compile.sass import code_listing, disassemble, histograms, listings
from epldb.compile.toolchain import Toolchain, find_toolchain
from epldb.cxx import fill_expression
from epldb.problems import Problem, json_path
from epldb.records import ParamValue, Realization


@dataclass(frozen=True)
class EntryBuild:
    """Static evidence of one entry point at one parameter point on one target."""

    entry: str  # Entry.name
    point: dict[str, ParamValue]
    expression: str  # filled name expression
    lowered_name: str  # mangled symbol, for cupy.RawModule.get_function
    registers: int
    static_shared_bytes: int
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    barriers: int
    sass: dict[str, int]  # opcode histogram; {} if nvdisasm unavailable
    sass_variants: dict[str, int] = field(default_factory=dict)  # full mnemonics: LDG.E.128 → 4
    sass_sha256: str = ""  # of the function's instructions with operands (branch labels numbered module-wide)
    ptx_sha256: str = ""  # of the function's PTX with what it references (epldb.compile.ptx)
    sass_code_sha256: str = ""  # of the same, branch labels renumbered per function: the machine code's identity

    @property
    def spills(self) -> bool:
        return self.spill_store_bytes > 0 or self.spill_load_bytes > 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "point": dict(self.point),
            "expression": self.expression,
            "lowered_name": self.lowered_name,
            "registers": self.registers,
            "static_shared_bytes": self.static_shared_bytes,
            "stack_bytes": self.stack_bytes,
            "spill_store_bytes": self.spill_store_bytes,
            "spill_load_bytes": self.spill_load_bytes,
            "barriers": self.barriers,
            "sass": dict(self.sass),
            "sass_variants": dict(self.sass_variants),
            "sass_sha256": self.sass_sha256,
            "ptx_sha256": self.ptx_sha256,
            "sass_code_sha256": self.sass_code_sha256,
        }


@dataclass(frozen=True)
class RealizationBuild:
    """One realization compiled for one target."""

    realization_id: str
    target: str
    nvrtc_version: str  # e.g. "13.5"; "" when NVRTC is unavailable
    source_hash: str
    cubin: bytes | None  # None when compilation failed
    entries: tuple[EntryBuild, ...]
    problems: tuple[Problem, ...]  # compile errors and failed claims, located
    cached: bool
    seconds: float = 0.0  # wall time of compile_realization, cache hits included
    ptx_only: bool = False  # stopped at PTX: no cubin, resources or SASS, claims unchecked

    @property
    def ok(self) -> bool:
        """Compiled, and no problem of severity error (failed claims included)."""
        made = self.cubin is not None or (self.ptx_only and bool(self.entries))
        return made and not any(p.severity == "error" for p in self.problems)

    def lowered_names(self) -> dict[str, str]:
        """Filled name expression → mangled name, for loading the cubin."""
        return {e.expression: e.lowered_name for e in self.entries}

    def find(self, entry: str, point: dict[str, ParamValue]) -> EntryBuild | None:
        for e in self.entries:
            if e.entry == entry and e.point == point:
                return e
        return None


def _key(
    src_hash: str, kernel_file: str, expressions: list[str], options: list[str], target: str, tc: Toolchain
) -> str:
    # Absolute include paths differ between machines and say nothing about the output; the header
    # versions do, so they stand in for the -I options.
    portable = [o for o in options if not o.startswith("-I")]
    return cache.build_key(
        {
            "source_hash": src_hash,
            "program": kernel_file,  # the program name is __FILE__ and appears in the log
            "expressions": sorted(expressions),
            "options": portable,
            "target": target,
            "nvrtc": tc.nvrtc_version,
            "headers": tc.headers_version,
            "cccl": tc.cccl_version,
        }
    )


def _sass_of(cubin: bytes, tc: Toolchain) -> tuple[dict[str, dict[str, dict[str, int]]] | None, str | None]:
    """Per mangled name: {"opcodes": ..., "variants": ...}; None when nvdisasm is unavailable."""
    if tc.nvdisasm is None:
        return None, None
    text, why = disassemble(cubin, tc.nvdisasm)
    if text is None:
        return None, why
    code = listings(text)

    def digest(lines: list[str]) -> str:
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    return {n: {"opcodes": f.opcodes, "variants": f.variants, "sha256": digest(code.get(n, [])),
                "code_sha256": digest(code_listing(code.get(n, [])))}
            for n, f in histograms(text).items()}, None


def _failed(realization: Realization, target: str, nvrtc: str, src_hash: str, problems: list[Problem], t0: float) -> RealizationBuild:
    return RealizationBuild(
        realization.id, target, nvrtc, src_hash, None, (), tuple(problems), False, time.perf_counter() - t0
    )


def compile_realization(
    root: Path,
    realization: Realization,
    target: str,
    points: list[dict] | None = None,
    *,
    cache_dir: Path | None = None,
    machine_code: bool = True,
) -> RealizationBuild:
    """Compile every entry × point (default: the whole parameter space) for ``target``; with
    ``machine_code=False``, only as far as PTX (about two thirds of the time: no ptxas, no
    nvdisasm), the entries then carrying their PTX hashes and nothing ptxas would have said.

    Never raises for a bad kernel, record or toolchain: everything wrong comes back in
    ``problems``, and ``cubin`` is None when there is nothing to run.
    """
    t0 = time.perf_counter()
    root = Path(root)
    tc = find_toolchain()
    nvrtc_version = tc.nvrtc_version or ""
    kernel_file = realization.kernel_path.as_posix()
    src_hash = source_hash(root, realization.kernel.source)
    source_loc = realization.loc("kernel", "source")
    problems: list[Problem] = []

    kernel_path = root / kernel_file
    try:
        source = kernel_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(
            Problem(source_loc, f"kernel source {kernel_file} cannot be read ({exc})", "kernel-missing", json_path(("kernel", "source")))
        )
        return _failed(realization, target, nvrtc_version, src_hash, problems, t0)
    if not tc.usable:
        problems.extend(Problem(source_loc, p.message, p.rule, json_path(("kernel", "source")), p.severity) for p in tc.problems)
        return _failed(realization, target, nvrtc_version, src_hash, problems, t0)

    # Fill every entry's name expression at every point; one expression may serve several points.
    jobs: list[tuple[str, dict[str, ParamValue], str]] = []
    origin: dict[str, tuple[int, dict[str, ParamValue]]] = {}
    for point in realization.points() if points is None else points:
        for i, entry in enumerate(realization.kernel.entries):
            where = ("kernel", "entries", i, "expression")
            try:
                expr = fill_expression(entry.expression, point)
            except KeyError as exc:
                problems.append(
                    Problem(realization.loc(*where), f"name expression {entry.expression!r} needs parameter {exc.args[0]!r}, absent from point {point}", "compile-expression", json_path(where))
                )
                continue
            jobs.append((entry.name, dict(point), expr))
            origin.setdefault(expr, (i, dict(point)))
    if problems:
        return _failed(realization, target, nvrtc_version, src_hash, problems, t0)
    expressions = sorted(origin)

    profile = target_profiles(root).get(target)
    options = default_options(root, realization.kernel.source, target, tc) + list(profile.nvrtc_options if profile else ())
    if not machine_code:
        options = ptx_options(options)
    key = _key(src_hash, kernel_file, expressions, options, target, tc)
    cache_dir = cache.default_cache_dir(root) if cache_dir is None else Path(cache_dir)

    hit = cache.load(cache_dir, key)
    if hit is not None and hit[1].get("ptx_hash_version") != PTX_HASH_VERSION:
        hit = None  # cached before PTX hashes were kept, or hashed another way: build it again
    cached = hit is not None
    if hit is not None and not machine_code:
        cubin, facts = hit
    elif hit is not None:
        cubin, facts = hit
        stale_sass = facts.get("sass") is not None and any("code_sha256" not in f for f in facts["sass"].values())
        if facts.get("nvdisasm") != tc.nvdisasm_version or stale_sass:
            # SASS was read by another nvdisasm (or none); the cubin is the same, so read it again.
            sass, why = _sass_of(cubin, tc)
            facts = {**facts, "sass": sass, "nvdisasm": tc.nvdisasm_version if sass is not None else None}
            if why:
                problems.append(Problem(source_loc, why, "sass-unavailable", json_path(("kernel", "source")), "warning"))
            cache.store(cache_dir, key, cubin, facts)
    else:
        result = compile_program(source, kernel_file, expressions, options)
        problems.extend(problems_from_log(result.log, root, realization, target, origin, failed=not result.ok, status=result.status))
        if not result.ok or (machine_code and result.cubin is None):
            return _failed(realization, target, nvrtc_version, src_hash, problems, t0)
        # The PTX stands in for the cubin in the cache of a build that stops there.
        cubin = result.cubin if result.cubin is not None else result.ptx.encode()
        report = parse_ptxas_log(result.log)
        sass, why = _sass_of(cubin, tc) if machine_code else (None, None)
        if why:
            problems.append(Problem(source_loc, why, "sass-unavailable", json_path(("kernel", "source")), "warning"))
        facts = {
            "realization": realization.id,
            "kernel": kernel_file,
            "source_hash": src_hash,
            "target": target,
            "nvrtc": tc.nvrtc_version,
            "nvdisasm": tc.nvdisasm_version if sass is not None else None,
            "options": [o for o in options if not o.startswith("-I")],
            "lowered": result.lowered,
            "ptxas": {n: f.as_dict() for n, f in report.functions.items()},
            "sass": sass,
            "ptx": function_hashes(result.ptx, set(result.lowered.values())),
            "ptx_hash_version": PTX_HASH_VERSION,
            "log": result.log,
            "compile_seconds": result.seconds,
        }
        why_not = cache.store(cache_dir, key, cubin, facts)
        if why_not:
            problems.append(Problem(source_loc, why_not, "build-cache", json_path(("kernel", "source")), "notice"))

    if cached:
        # Warnings live in the log; a cache hit reports the same ones as the build it replays.
        problems.extend(problems_from_log(facts.get("log", ""), root, realization, target, origin, failed=False, status=""))

    lowered: dict[str, str] = facts["lowered"]
    functions = {n: FunctionResources.from_dict(d) for n, d in facts["ptxas"].items()}
    ptx_hashes: dict[str, str] = facts.get("ptx") or {}
    sass_all: dict[str, dict[str, dict[str, int]]] | None = facts.get("sass")
    entries: list[EntryBuild] = []
    for name, point, expr in jobs:
        low = lowered.get(expr, "")
        fn = functions.get(low)
        if not machine_code:
            fn = FunctionResources(low)
        elif fn is None or fn.registers is None:
            problems.append(
                Problem(source_loc, f"ptxas reported no resources for {expr} ({low or 'no lowered name'}) on {target}", "ptxas-missing", json_path(("kernel", "source")), "warning")
            )
            fn = FunctionResources(low)
        fs = (sass_all or {}).get(low, {})
        entries.append(
            EntryBuild(
                entry=name,
                point=point,
                expression=expr,
                lowered_name=low,
                registers=fn.registers or 0,
                static_shared_bytes=fn.static_shared_bytes,
                stack_bytes=fn.stack_bytes,
                spill_store_bytes=fn.spill_store_bytes,
                spill_load_bytes=fn.spill_load_bytes,
                barriers=fn.barriers,
                sass=dict(fs.get("opcodes", {})),
                sass_variants=dict(fs.get("variants", {})),
                sass_sha256=str(fs.get("sha256", "")),
                ptx_sha256=ptx_hashes.get(low, ""),
                sass_code_sha256=str(fs.get("code_sha256", "")),
            )
        )

    if machine_code:
        problems.extend(check_claims(realization, entries, target, sass_available=sass_all is not None))
        if sass_all is None:
            problems.extend(sass_unavailable_problem(realization, target))
    return RealizationBuild(
        realization_id=realization.id,
        target=target,
        nvrtc_version=nvrtc_version,
        source_hash=src_hash,
        cubin=cubin if machine_code else None,
        entries=tuple(entries),
        problems=tuple(problems),
        cached=cached,
        seconds=time.perf_counter() - t0,
        ptx_only=not machine_code,
    )
