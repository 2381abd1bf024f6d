"""``epldb sanitize``: every realization verified under NVIDIA's compute-sanitizer, one evidence row
per realization and tool.

Each (realization, tool) runs ``compute-sanitizer --tool TOOL ... python -m epldb verify ID
--max-n N --cover`` in a child process: the verification's odd sizes, fresh random inputs, poisoned
outputs and canaries, with the sanitizer watching every launch (CuPy's own kernels too), at a
sample of the parameter space that holds every value of every parameter (``--all-points``: every
point; cross-entropy/online-stream's 60 points ran past 300 s under memcheck on an H100). The
child's verification rows go to a scratch folder and are dropped; what is
kept is one row of kind ``sanitizer``: subject the realization, params ``{"tool": TOOL}``, shape
``{"max_n": N}``, status ``passed`` when the sanitizer reports no error and the verification
passed, ``incorrect`` with the first reports in ``detail`` when it reports errors,
``runtime-error`` when the child fails otherwise or runs past its time. The source hash and
target are the child's (its verification rows name them), so a change of the kernel's machine code
makes the row stale (epldb.evidence.freshness: a comment keeps it once its compile facts are recorded).

Tools: memcheck (out-of-bounds and misaligned accesses), racecheck (shared-memory hazards between
threads), synccheck (barriers that not every thread reaches, invalid syncs), initcheck (reads of
global memory nothing wrote).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from epldb.evidence import Row
from epldb.records import covering

if TYPE_CHECKING:
    from epldb.catalog import Catalog

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
#: Elements of the largest verification shape run under the sanitizer: odd sizes, a few hundred
#: thousand elements (memcheck runs kernels 10-100x slower; the big shapes add time, not coverage).
DEFAULT_MAX_N = 1 << 20
#: Seconds one (realization, tool) child may take.
DEFAULT_TIMEOUT_S = 900
#: The exit status the sanitizer is told to return when it found errors.
ERROR_EXIT = 86
#: Reports kept in a row's detail.
KEPT_REPORTS = 3

_PREFIX = "========= "
_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) error")
# racecheck's own summary: "RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)".
_RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?")
# The first line of each report: what went wrong, where (the lines after it are its backtrace).
_REPORT = re.compile(r"^(Invalid |Misaligned |Out-of-range |Uninitialized |Race reported|Error: |Barrier error|"
                     r"Program hit|Warning: |Malloc/Free error)")


@dataclass(frozen=True)
class Report:
    """What one sanitizer run said: its error count (None: no summary line, the run died first)
    and the first lines of its reports."""

    errors: int | None
    first: tuple[str, ...]


def parse_report(text: str) -> Report:
    """The summary count and the first report lines of compute-sanitizer's output ``text``."""
    errors: int | None = None
    first: list[str] = []
    for line in text.splitlines():
        if not line.startswith(_PREFIX):
            continue
        body = line[len(_PREFIX):]
        if body.startswith(" "):  # an indented line: the report's backtrace and address
            continue
        body = body.strip()
        m = _SUMMARY.search(body) or _RACE_SUMMARY.search(body)
        if m:
            errors = max(errors or 0, int(m.group(1)))  # racecheck may print both summaries
        elif _REPORT.match(body) and len(first) < KEPT_REPORTS and body not in first:
            first.append(body)
    return Report(errors, tuple(first))


def sanitizer_command(tool: str, realization_id: str, out: Path, max_n: int, root: Path,
                      executable: str = "compute-sanitizer", all_points: bool = False) -> list[str]:
    """The child's command line: the sanitizer around a verification of one realization (at a
    covering sample of its points unless ``all_points``)."""
    # initcheck's unused-memory tracking is off by default; it takes no value in CUDA 13 (a "no"
    # after it is read as the program to run), so it is not named here.
    extra = {"memcheck": ["--leak-check", "no"], "racecheck": ["--racecheck-report", "all"]}.get(tool, [])
    return [executable, "--tool", tool, *extra, "--error-exitcode", str(ERROR_EXIT), "--print-limit", "20",
            sys.executable, "-m", "epldb", "--root", str(root), "verify", realization_id, "--max-n", str(max_n),
            "--out", str(out), *([] if all_points else ["--cover"])]


def _child_rows(out: Path) -> list[dict[str, str]]:
    from epldb.evidence import read_journal, read_sealed

    rows: list[dict[str, str]] = []
    for path in sorted(out.glob("*/*.parquet")):
        rows += read_sealed(path)
    for path in sorted(out.glob("*/*.csv")):
        rows += read_journal(path)
    return rows


#: Runs a child: (argv, timeout in seconds) -> (exit status or None on a timeout, combined output).
Runner = Callable[[list[str], float], tuple[int | None, str]]


def run_child(argv: list[str], timeout_s: float) -> tuple[int | None, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        parts = [p.decode("utf-8", "replace") if isinstance(p, bytes) else p for p in (e.stdout, e.stderr) if p]
        return None, "".join(parts)
    return done.returncode, done.stdout + done.stderr


#: How the detail of a row whose tool reported nothing, while the verification under it failed,
#: begins after "0 <tool> " (sanitize_one writes it, outcome reads it).
CHECK_FAILED = "errors, but the verification failed"
_CHECK_FAILED = re.compile(rf"0 \w+ {re.escape(CHECK_FAILED)}")

#: What a row says to a reader, in the order of the site's tallies.
OUTCOMES = ("clean", "errors", "check failed", "failed to run")


def outcome(status: str, detail: str) -> str:
    """One of OUTCOMES: 'errors' when the tool reported some, 'check failed' when it reported none
    but a verification check failed under it (a draft's known inaccuracy, or a fault the tool's
    instrumentation provokes: the detail names the first such check), 'failed to run' for a child
    that timed out or ended without verification rows."""
    if status == "passed":
        return "clean"
    if status != "incorrect":
        return "failed to run"
    return "check failed" if _CHECK_FAILED.match(detail) else "errors"


def sanitize_one(catalog: "Catalog", realization_id: str, tool: str, *, max_n: int = DEFAULT_MAX_N,
                 timeout_s: float = DEFAULT_TIMEOUT_S, runner: Runner = run_child,
                 executable: str = "compute-sanitizer", all_points: bool = False) -> Row:
    """One realization under one tool: the evidence row (see the module docstring)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="epl-sanitize-") as scratch:
        status, text = runner(sanitizer_command(tool, realization_id, Path(scratch), max_n, catalog.root, executable,
                                                all_points), timeout_s)
        checks = _child_rows(Path(scratch))
    report = parse_report(text)
    row = Row(realization_id, "sanitizer", {"tool": tool}, "", {"max_n": max_n}, "runtime-error")
    if checks:
        row.source_hash, row.target, row.nvrtc = (checks[0].get(k, "") for k in ("source_hash", "target", "nvrtc"))
    failed = sum(1 for c in checks if c.get("status") != "passed")
    # The child's wall time: what plans the next sweep (memcheck costs 10-100x per launch).
    r = catalog.realizations.get(realization_id)
    space = r.points() if r is not None else []
    held = space if all_points else covering(space)
    counted = f"{len(checks)} verification check(s) at {len(held)} of {len(space)} point(s), {failed} failed"
    if status is not None:
        counted += f", {time.monotonic() - started:.0f} s"
    if status is None:
        row.detail = f"timed out after {timeout_s:g} s ({counted} by then)"
    elif report.errors or status == ERROR_EXIT:
        row.status = "incorrect"
        found = f"{report.errors} {tool} error(s)" if report.errors else f"{tool} errors (exit {ERROR_EXIT})"
        row.detail = f"{found}: " + " | ".join(report.first) + f"; {counted}"
    elif report.errors == 0 and status == 0 and checks:
        row.status = "passed"
        row.detail = f"clean: 0 errors; {counted}"
    elif report.errors == 0 and checks:
        row.status = "incorrect"
        row.detail = f"0 {tool} {CHECK_FAILED} (exit {status}); {counted}"
        # Which check: what the next session needs to tell a fault the tool provokes from a draft's
        # known inaccuracy (the child's own rows are dropped with its scratch folder).
        bad = next(c for c in checks if c.get("status") != "passed")
        row.detail += (f"; first failed: {bad.get('dtype', '')} {bad.get('shape', '')} at {bad.get('params', '')}"
                       f" ({bad.get('status', '')}: {str(bad.get('detail', ''))[:200]})")
    else:
        tail = " | ".join(line.strip() for line in text.strip().splitlines()[-3:])
        row.detail = f"the sanitizer run ended with exit {status} and no verification rows: {tail}"
    return row


def sanitize_command(catalog: "Catalog", ids: Sequence[str] = (), *, tools: Sequence[str] = TOOLS,
                     out_dir: Path | None = None, resume: str | None = None, max_n: int = DEFAULT_MAX_N,
                     timeout_s: float = DEFAULT_TIMEOUT_S, jobs: int = 1, runner: Runner = run_child,
                     all_points: bool = False, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """``epldb sanitize [ID ...]``: a row per realization and tool in a run of its own, ``jobs``
    children at a time (each child is a process of its own on the one GPU; the sanitizer's cost is
    host-side instrumentation, so children side by side use the host's cores). Returns 0, 1 (a
    sanitizer reported errors or a run failed) or 2 (nothing to run with)."""
    from epldb.measure import EXIT_FAILED, EXIT_OK, EXIT_USAGE, no_gpu, open_writer, prebuild_selected, select_ids

    out, err = stdout or sys.stdout, stderr or sys.stderr
    selected = select_ids(catalog, ids, err)
    if selected is None:
        return EXIT_USAGE
    executable = shutil.which("compute-sanitizer")
    if executable is None:
        print("compute-sanitizer not found on PATH (it comes with the CUDA toolkit: "
              "see docs/GPU.md, 'Sanitizer sweep')", file=err)
        return EXIT_USAGE
    if no_gpu(err):
        return EXIT_USAGE
    writer = open_writer(catalog, "sanitize", out_dir, resume, "sanitize " + " ".join(ids), err)
    if writer is None:
        return EXIT_USAGE
    todo = [(rid, tool) for rid in selected for tool in tools
            if not writer.has(Row(rid, "sanitizer", {"tool": tool}, "", {"max_n": max_n}, "passed"))]
    rows: list[Row] = []
    try:
        if jobs > 1 and todo:
            # Children run side by side: compile each kernel once here, into the disk cache they
            # read, so that parallel children never build the same program at once.
            prebuild_selected(catalog, list(dict.fromkeys(rid for rid, _ in todo)), err)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            running = [pool.submit(sanitize_one, catalog, rid, tool, max_n=max_n, timeout_s=timeout_s,
                                   runner=runner, executable=executable, all_points=all_points)
                       for rid, tool in todo]
            for done in as_completed(running):
                row = done.result()
                writer.append(row)  # the main thread alone writes: rows land whole, as each child ends
                rows.append(row)
                print(f"{row.subject:40s} {row.params['tool']:10s} {row.status:14s} {row.detail[:100]}",
                      file=err, flush=True)
    finally:
        writer.close()
    bad = [r for r in rows if r.status != "passed"]
    print(f"{len(rows) - len(bad)} of {len(rows)} (realization, tool) runs clean", file=out)
    for r in bad:
        print(f"  {r.subject} {r.params['tool']}: {r.status}: {r.detail}", file=out)
    print(f"\nevidence: {writer.sealed_path}", file=out)
    return EXIT_FAILED if bad else EXIT_OK
