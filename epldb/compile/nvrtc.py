"""One NVRTC program: source text and name expressions in, cubin, lowered names and log out.

The program is named after the kernel's repository-relative path (``kernels/<family>/...cu``) so
the compiler's messages point at the file a person edits. Errors come back as values: the
``CompileResult`` holds NVRTC's status and log, ``diagnostics`` parses the log into
file/line/column/message records, and ``problems_from_log`` locates each one: in the kernel or
header it is about (with the record line that names the kernel), or at the record's name
expression or target when those are at fault.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Sequence

from epldb.compile.toolchain import Toolchain
from epldb.problems import Location, Problem, json_path
from epldb.records import ParamValue, Realization

# The name NVRTC gives the synthetic file holding `#pragma nv_mangled_name <expression>` lines.
NAME_MAP_FILE = "__nv_name_map"


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    status: str  # NVRTC's result name, e.g. "NVRTC_ERROR_COMPILATION"
    log: str
    cubin: bytes | None = None
    lowered: dict[str, str] = field(default_factory=dict)  # name expression → mangled name
    seconds: float = 0.0
    ptx: str = ""


def ptx_options(options: Sequence[str]) -> list[str]:
    """The options of a build that stops at PTX: the virtual architecture of the same name
    (``sm_90a`` → ``compute_90a``, whose PTX is byte for byte the PTX a cubin build makes), no ptxas."""
    out = [o for o in options if not o.startswith("--ptxas-options")]
    return [o.replace("=sm_", "=compute_", 1) if o.startswith("--gpu-architecture=") else o for o in out]


def default_options(root: Path, kernel_rel: str, target: str, toolchain: Toolchain) -> list[str]:
    """The options every build uses; the run room passes the same ones to cupy.RawModule.

    Includes: kernels/include (``#include <epl/...>``), the kernel's own folder (NVRTC resolves a
    main file's quoted includes against the cwd, not against the program name), then CUDA and CCCL.
    """
    kernel_dir = (Path(root) / "kernels" / kernel_rel).parent
    return [
        f"--gpu-architecture={target}",
        "-std=c++17",
        "--ptxas-options=-v",  # resource usage per function in the log; parsed by ptxas.py
        f"-I{Path(root) / 'kernels' / 'include'}",
        f"-I{kernel_dir}",
        *(f"-I{d}" for d in toolchain.include_dirs),
    ]


def _log(nvrtc, prog) -> str:
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS or size <= 1:
        return ""
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\0").decode("utf-8", errors="replace")


def compile_program(
    source: str, name: str, expressions: Sequence[str], options: Sequence[str]
) -> CompileResult:
    """Compile one program with NVRTC; never raises for bad source, options or expressions."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        return CompileResult(False, "NO_NVRTC", f"cuda-bindings is not importable: {exc}")
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    try:
        err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    except (RuntimeError, OSError) as exc:  # libnvrtc could not be loaded
        return CompileResult(False, "NO_NVRTC", f"NVRTC could not be loaded: {exc}")
    if err != ok:
        return CompileResult(False, err.name, f"nvrtcCreateProgram failed: {err.name}")
    try:
        for e in expressions:
            (err,) = nvrtc.nvrtcAddNameExpression(prog, e.encode())
            if err != ok:
                return CompileResult(False, err.name, f"nvrtcAddNameExpression({e!r}) failed: {err.name}")
        opts = [o.encode() for o in options]
        t0 = time.perf_counter()
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        seconds = time.perf_counter() - t0
        log = _log(nvrtc, prog)
        if err != ok:
            return CompileResult(False, err.name, log, seconds=seconds)
        lowered: dict[str, str] = {}
        for e in expressions:
            lerr, low = nvrtc.nvrtcGetLoweredName(prog, e.encode())
            if lerr == ok:
                lowered[e] = low.decode()
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        if err != ok:
            return CompileResult(False, err.name, log + f"\nnvrtcGetPTXSize failed: {err.name}", seconds=seconds)
        buf = b" " * size
        (err,) = nvrtc.nvrtcGetPTX(prog, buf)
        ptx = buf.rstrip(b"\0").decode("utf-8", errors="replace")
        if not any(o.startswith("--gpu-architecture=sm_") for o in options):
            return CompileResult(True, err.name, log, None, lowered, seconds, ptx)
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        if err != ok:
            return CompileResult(False, err.name, log + f"\nnvrtcGetCUBINSize failed: {err.name}", seconds=seconds)
        cubin = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        if err != ok:
            return CompileResult(False, err.name, log + f"\nnvrtcGetCUBIN failed: {err.name}", seconds=seconds)
        return CompileResult(True, err.name, log, cubin, lowered, seconds, ptx)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


# --- the log, read as diagnostics ------------------------------------------------------------

# `kernels/a/k.cu(12): error: ...`, `/abs/kernels/include/epl/x.cuh(3): warning #177-D: ...`,
# `k.cu(1): catastrophic error: cannot open source file "x.cuh"`, `__nv_name_map(2): error: ...`.
_DIAG = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\): (?P<sev>catastrophic error|error|warning|remark)(?: #[\w-]+)?: (?P<msg>.*)$")
_SUMMARY = re.compile(r"^\d+ (catastrophic )?errors? detected in the compilation of|^Compilation terminated|^Remark: ")
_NVRTC_LINE = re.compile(r"^nvrtc: (?P<sev>error|warning)\s*: (?P<msg>.*)$")


@dataclass
class Diagnostic:
    file: str  # as NVRTC wrote it: the program name, an -I path, or __nv_name_map
    line: int
    col: int
    severity: str  # "error" or "warning" ("catastrophic error" counts as error)
    message: str
    source_line: str = ""  # the quoted source line, without NVRTC's indent
    context: list[str] = field(default_factory=list)  # "detected during instantiation of ..."

    @property
    def full_message(self) -> str:
        parts = [c.strip() for c in self.context if c.strip()]
        if not parts:
            return self.message
        # "detected during:" heads a list of instantiations, one per line; keep them apart.
        head = parts.pop(0) if parts[0].endswith(":") and len(parts) > 1 else ""
        return f"{self.message} ({head + ' ' if head else ''}{'; '.join(parts)})"


def diagnostics(log: str) -> list[Diagnostic]:
    """Errors and warnings in an NVRTC log, with the column read off the caret line."""
    out: list[Diagnostic] = []
    cur: Diagnostic | None = None
    for raw in log.splitlines():
        line = raw.rstrip()
        if m := _DIAG.match(line):
            sev = "warning" if m["sev"] in ("warning", "remark") else "error"
            cur = Diagnostic(m["file"].strip(), int(m["line"]), 0, sev, m["msg"].strip())
            out.append(cur)
        elif m := _NVRTC_LINE.match(line):  # option errors: no file, no line
            cur = Diagnostic("", 0, 0, m["sev"], m["msg"].strip())
            out.append(cur)
        elif cur is None or not line.strip() or _SUMMARY.match(line):
            continue
        elif line.strip() == "^" and cur.col == 0:
            # The caret sits under the offending column of the quoted line; both are indented 2.
            cur.col = max(1, line.index("^") - 1)
        elif line.lstrip().startswith("detected during") or line.startswith("            "):
            cur.context.append(line)
        elif not cur.source_line:
            cur.source_line = line[2:] if line.startswith("  ") else line
    return out


def repo_path(root: Path, file: str) -> str:
    """A diagnostic's file as a repository-relative POSIX path when it lies in the repository."""
    p = Path(file)
    if not p.is_absolute():
        return PurePosixPath(file).as_posix()
    try:
        return PurePosixPath(p.resolve().relative_to(Path(root).resolve())).as_posix()
    except ValueError:
        return file


# --- diagnostics as located problems ---------------------------------------------------------


@dataclass(frozen=True)
class CompileProblem(Problem):
    """A problem the compiler found: located in the kernel (or header) it is in.

    ``record`` is where the realization names its kernel (``$.kernel.source``), so a reader can
    get from the kernel line back to the record that builds it.
    """

    record: Location | None = None
    record_json_path: str = "$"

    def as_dict(self) -> dict[str, object]:
        d = super().as_dict()
        if self.record is not None:
            d["record"] = {"file": self.record.file, "line": self.record.line, "col": self.record.col, "json_path": self.record_json_path}
        return d


def problems_from_log(
    log: str,
    root: Path,
    realization: Realization,
    target: str,
    origin: dict[str, tuple[int, dict[str, ParamValue]]],
    *,
    failed: bool,
    status: str,
) -> list[Problem]:
    """Problems from an NVRTC log: errors (and warnings) at their file and line.

    ``origin`` maps each filled name expression to its entry index and point, so an error in a
    name expression (NVRTC's synthetic ``__nv_name_map`` file) lands on the record's expression.
    """
    source_path = ("kernel", "source")
    record = realization.loc(*source_path)
    rule = {"error": "compile-error", "warning": "compile-warning"}
    out: list[Problem] = []
    for d in diagnostics(log):
        sev = "error" if d.severity == "error" else "warning"
        if d.file == NAME_MAP_FILE:
            expr = d.source_line.split("nv_mangled_name", 1)[-1].strip()
            i, point = origin.get(expr, (0, {}))
            where = ("kernel", "entries", i, "expression")
            msg = f"name expression {expr} (point {point}) on {target}: {d.full_message}"
            out.append(Problem(realization.loc(*where), msg, rule[sev], json_path(where), sev))
        elif not d.file:
            # Option errors have no file; an unknown architecture is the target's fault.
            where = ("targets", realization.targets.index(target)) if target in realization.targets else source_path
            out.append(Problem(realization.loc(*where), f"NVRTC on {target}: {d.message}", rule[sev], json_path(where), sev))
        else:
            loc = Location(repo_path(root, d.file), d.line, d.col)
            # Warnings repeat per instantiation with a different context each; report one.
            text = d.full_message if sev == "error" else d.message
            msg = f"{text} (building {realization.id} for {target}; kernel named at {record})"
            out.append(CompileProblem(loc, msg, rule[sev], "$", sev, record=record, record_json_path=json_path(source_path)))
    if failed and not any(p.severity == "error" for p in out):
        tail = " ".join(log.split())[-400:] or "no log"
        out.append(Problem(record, f"NVRTC failed on {target} ({status}): {tail}", "compile-error", json_path(source_path)))
    return list(dict.fromkeys(out))  # the same warning repeats once per instantiation
