"""The bad-input corpus's harness: a small valid repository, one defect applied to it, the CLI run
on it, and what a user must see.

Each case copies ``tests/examples/base`` (or the launch-plan fixture of
``tests/realization_fixtures.py``) into a fresh folder, applies exactly one defect, runs one
command, and expects exactly one error line, located (``file:line:col``, and the JSON path where a
field is involved), exit status 1, no traceback and no "internal error". Cheap cases call the CLI's
``main`` in-process; the ones that could hang or exhaust memory (alias bombs, huge files, deep
nesting, long literals) run in a subprocess under a wall-clock and an address-space limit, which
also proves the exit status and the absence of a traceback end to end.
"""

from __future__ import annotations

import contextlib
import io
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from examples import BASE
from realization_fixtures import make_repo

#: Seconds any one case may take: far above a healthy run (~1 s), far below a hang.
TIME_LIMIT_S = 20
#: Address space of a subprocess case: the CLI with its imports needs well under this; an alias
#: bomb or a whole huge file held several times over would not fit.
MEMORY_LIMIT_BYTES = 3 << 30

#: This checkout: the subprocess runs its epldb package, not an installed one.
REPOSITORY = Path(__file__).resolve().parents[2]

Defect = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    """One defect and the one message it must give."""

    name: str
    defect: Defect
    where: str  # the location the line starts with, 'file:line:col' (a regex)
    says: str  # a fragment of the message (a regex): what is wrong or what to do
    json_path: str | None = None  # the JSON path the line must name, where a field is involved
    args: tuple[str, ...] = ("validate", "--schema-only")
    fixture: str = "base"  # 'base': tests/examples/base; 'launch': the launch-plan fixture
    subprocess: bool = False  # run the CLI in a limited subprocess rather than in-process
    whole_file: bool = False  # the defect is a whole file or folder: no line:col to give


@dataclass
class Outcome:
    rc: int
    out: str
    err: str
    seconds: float
    errors: list[str] = field(default_factory=list)


def repository(tmp_path: Path, fixture: str) -> Path:
    if fixture == "launch":
        root = make_repo(tmp_path)
        # The fixture names sm_90, which the base's profiles lack (its own tests call the plan
        # check directly); the corpus runs the whole CLI, so it must start valid.
        real = root / "catalog/realizations/tile-sum/naive.yaml"
        real.write_text(real.read_text().replace("sm_90]", "sm_90a]"))
        return root
    root = tmp_path / "repo"
    shutil.copytree(BASE, root)
    return root


# --- defects: small edits of the fixture's files --------------------------------------------------


def edit(rel: str, old: str, new: str) -> Defect:
    """Replace ``old`` (which must occur) by ``new`` in one file."""
    def apply(root: Path) -> None:
        path = root / rel
        text = path.read_text()
        assert old in text, f"{old!r} is not in {rel}: the fixture changed, fix the case"
        path.write_text(text.replace(old, new, 1))
    return apply


def write(rel: str, content: str | bytes) -> Defect:
    def apply(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return apply


def append(rel: str, text: str) -> Defect:
    def apply(root: Path) -> None:
        path = root / rel
        path.write_text(path.read_text() + text)
    return apply


def rename(rel: str, new: str) -> Defect:
    def apply(root: Path) -> None:
        (root / rel).rename(root / new)
    return apply


def link(rel: str, target: str) -> Defect:
    """Replace a file by a symbolic link to ``target``."""
    def apply(root: Path) -> None:
        (root / rel).unlink()
        (root / rel).symlink_to(target)
    return apply


def both(*defects: Defect) -> Defect:
    """Several edits that together make one defect (a kernel and the record naming it)."""
    def apply(root: Path) -> None:
        for d in defects:
            d(root)
    return apply


# --- running ----------------------------------------------------------------------------------------


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def run_cli(root: Path, args: Sequence[str], *, in_subprocess: bool) -> Outcome:
    argv = ["--root", str(root), *args]
    start = time.monotonic()
    if in_subprocess:
        result = subprocess.run([sys.executable, "-m", "epldb", *argv], capture_output=True, text=True,
                                timeout=TIME_LIMIT_S, preexec_fn=_limit_memory, cwd=REPOSITORY)
        return Outcome(result.returncode, result.stdout, result.stderr, time.monotonic() - start)
    from epldb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse's own usage errors
            rc = int(exc.code or 0)
    return Outcome(rc, out.getvalue(), err.getvalue(), time.monotonic() - start)


_ERROR_LINE = re.compile(r"^(?P<where>\S+?): error: (?P<rest>.*)$")


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if _ERROR_LINE.match(line)]


def check(case: Case, tmp_path: Path) -> Outcome:
    """Apply the case's defect, run its command and assert what a user must see."""
    root = repository(tmp_path, case.fixture)
    case.defect(root)
    outcome = run_cli(root, case.args, in_subprocess=case.subprocess)
    both_streams = outcome.out + outcome.err
    assert "Traceback" not in both_streams, both_streams
    assert "internal error" not in both_streams, both_streams
    assert outcome.rc == 1, f"exit {outcome.rc}, not 1:\n{both_streams}"
    assert outcome.seconds < TIME_LIMIT_S, f"took {outcome.seconds:.1f} s"
    outcome.errors = error_lines(outcome.out)
    assert len(outcome.errors) == 1, "one defect, one message; got:\n" + "\n".join(outcome.errors or [both_streams])
    line = outcome.errors[0]
    assert re.match(rf"^{case.where}: error: ", line), f"not located at {case.where}:\n{line}"
    if not case.whole_file:
        assert re.match(r"^\S+:\d+:\d+: error: ", line), f"no line:col:\n{line}"
    if case.json_path is not None:
        assert f"error: {case.json_path}: " in line, f"no JSON path {case.json_path}:\n{line}"
    assert re.search(case.says, line), f"does not say {case.says!r}:\n{line}"
    return outcome
