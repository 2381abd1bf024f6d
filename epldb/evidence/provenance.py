"""Strict provenance: every run has its environment, and its commit is a full sha of the history, or
the run says plainly that it measured an uncommitted tree (``git_dirty`` with ``source_tree_sha256``);
and the board its environment names is the board of the device folder it lies in
(epldb.evidence.environment.board_mismatch).

Runs sealed before this was checked have holes; ``evidence/provenance-holes.yaml`` lists each with
the holes found then, so that ``epldb validate`` reports them as notices (and the site shows them)
while a new run with a hole is an error. The list is never edited to make a run look whole: a hole
is shown, not filled in by guess.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from epldb.evidence.environment import board_mismatch
from epldb.evidence.store import EXPERIMENTS, device_of, run_files
from epldb.evidence.table import kind_of_run
from epldb.problems import Location, Problem

RULE = "evidence-provenance"
HOLES_FILE = "evidence/provenance-holes.yaml"
_FULL_SHA = re.compile(r"[0-9a-f]{40}")
_COMMIT = re.compile(r"[0-9a-f]{4,40}")  # a full sha, or an abbreviated one the history may resolve


@dataclass
class RunProvenance:
    device: str
    run: str
    file: str  # the sealed run, repository-relative
    kind: str
    rows: int
    commit: str  # the full sha of the history when it resolves, else as recorded
    recorded_commit: str | None
    dirty: bool | None
    holes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return "complete" if not self.holes else "; ".join(self.holes)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "verdict": self.verdict}


def _history(root: Path, names: list[str]) -> dict[str, str | None] | None:
    """Each commit name → the full sha it names in the history (None: not there), or None when the
    repository's history cannot be read here (no git, not a clone). The history is what HEAD reaches:
    an object that only survives in this clone (a commit rewritten by a rebase) is not in it, since a
    fresh clone would not have it."""
    if not names:
        return {}
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True,
                             timeout=60)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != Path(root).resolve():
            return None  # not a clone of its own (a fixture inside another repository): not its history
        out = subprocess.run(["git", "cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=root,
                             input="".join(f"{n}\n" for n in names), capture_output=True, text=True, timeout=60)
        reached = subprocess.run(["git", "rev-list", "HEAD"], cwd=root, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0 or reached.returncode != 0:
        return None
    reachable = set(reached.stdout.split())
    lines = out.stdout.splitlines()
    if len(lines) != len(names):
        return None
    result: dict[str, str | None] = {}
    for name, line in zip(names, lines):
        sha, _, kind = line.partition(" ")
        result[name] = sha if kind == "commit" and sha in reachable else None
    return result


def run_provenance(root: Path, devices: dict[str, set[str]] | None = None) -> list[RunProvenance]:
    """Every sealed run under ``root/evidence`` with the holes in its provenance. ``devices``: GPU
    name → compute capabilities, from the catalog's targets (known_devices), checked when given."""
    import pyarrow.parquet as pq

    root = Path(root)
    runs: list[RunProvenance] = []
    envs: dict[str, dict[str, Any] | None] = {}
    for path in run_files(root):
        run = path.name[: -len(path.suffix)]
        env_path = path.with_name(f"{run}.env.json")
        try:
            loaded = json.loads(env_path.read_text(encoding="utf-8"))
            env: dict[str, Any] | None = loaded if isinstance(loaded, dict) else None
        except (OSError, ValueError):
            env = None
        rel = path.relative_to(root).as_posix()
        envs[rel] = env
        runs.append(RunProvenance(device_of(path), run, rel, kind_of_run(run, path.parent.name == EXPERIMENTS),
                                  pq.ParquetFile(path).metadata.num_rows, "",
                                  None if env is None else str(env.get("git_commit")), None if env is None else env.get("git_dirty")))
    names = sorted({r.recorded_commit for r in runs if r.recorded_commit and _COMMIT.fullmatch(r.recorded_commit)})
    history = _history(root, names)
    for r in runs:
        env = envs[r.file]
        if env is None:
            r.holes.append("no environment file")
            continue
        c = r.recorded_commit or ""
        if not _COMMIT.fullmatch(c):
            r.holes.append(f"commit not recorded ({json.dumps(c)})")
        elif history is None:
            r.commit = c
        elif history.get(c) is None:
            r.commit = c
            r.holes.append(f"commit {c} is not in the history")
        else:
            r.commit = history[c] or c
            if not _FULL_SHA.fullmatch(c):
                r.holes.append(f"commit abbreviated as {c}")
        if r.dirty is None:
            r.holes.append("whether the tree was committed is not recorded")
        elif r.dirty and not env.get("source_tree_sha256"):
            r.holes.append("an uncommitted tree with no hash of it")
        r.holes += board_mismatch(env, r.device, devices)
    return runs


def board_mismatch_holes(holes: list[str]) -> list[str]:
    """The holes of ``holes`` that board_mismatch found (each begins "the environment names",
    "... records device folder" or "... gives")."""
    return [h for h in holes if h.startswith(("the environment names", "the environment records device folder",
                                              "the environment gives"))]


def known_holes(root: Path) -> tuple[dict[str, list[str]], list[Problem]]:
    """The committed list of runs whose holes are known: run id → the holes recorded."""
    from epldb.yamlsafe import load_yaml

    path = Path(root) / HOLES_FILE
    if not path.is_file():
        return {}, []
    doc, problems = load_yaml(path.read_text(encoding="utf-8"), HOLES_FILE)
    if doc is None:
        return {}, problems
    data = doc.data
    if not isinstance(data, dict) or not all(isinstance(v, list) and all(isinstance(h, str) for h in v)
                                             for v in data.values()):
        return {}, [*problems, Problem(Location(HOLES_FILE), "a mapping of run id to a list of the holes found "
                                       "(strings) was expected", RULE)]
    return {str(k): list(v) for k, v in data.items()}, problems


def provenance_problems(root: Path, devices: dict[str, set[str]] | None = None) -> list[Problem]:
    """A run with a hole the committed list does not record is an error; a recorded one a notice."""
    runs = run_provenance(root, devices)
    known, problems = known_holes(root)
    history_checked = _history(Path(root), ["HEAD"]) is not None
    if not history_checked and runs:
        problems.append(Problem(Location("evidence"), "the git history cannot be read here: the runs' commits "
                                "were not checked against it", RULE, severity="notice"))
    for r in runs:
        if not r.holes:
            continue
        if known.get(r.run) == r.holes:
            problems.append(Problem(Location(r.file), f"provenance incomplete (known): {r.verdict}", RULE,
                                    severity="notice"))
        else:
            board = bool(board_mismatch_holes(r.holes))
            hint = ("a run lies in the folder of the board that measured it (epldb evidence merge puts it there)"
                    if board else "a run needs its environment file and a full commit sha of the history (pass "
                    "EPL_GIT_COMMIT=$(git rev-parse HEAD) and EPL_GIT_DIRTY to tools/gpu-run.sh)")
            problems.append(Problem(Location(r.file), f"provenance incomplete: {r.verdict}; {hint}", RULE))
    return problems
