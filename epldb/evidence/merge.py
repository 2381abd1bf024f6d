"""``epldb evidence merge``: bring sealed runs measured elsewhere (another GPU machine, a shard of a
run, a lent session's $OUT) into ``evidence/<device>/``.

A run arrives as a pair, ``<run>.parquet`` with ``<run>.env.json``; an experiment's run lies in a
folder named ``experiments`` and lands in ``evidence/<device>/experiments/``. The device folder is
the one the run's environment records (``device_slug``, else the slug of its ``gpu``), and the
environment must name that folder's board (epldb.evidence.environment.board_mismatch). A run is
refused when a file does not parse, its rows name another run, its board is not the folder's, or
its id already exists with other content (evidence is append-only: a run id is never reused); a run
already there byte for byte, or row for row with the same environment, is "already present" and
not an error, so merging the same folder twice is harmless. The merge is all or nothing: when any
run is refused nothing is written, so a fix and a second merge start from a clean state. Each file
is written atomically, the environment before the rows (a loader sees a run with its environment
or no run at all).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from epldb.evidence.environment import board_mismatch
from epldb.evidence.row import COLUMNS
from epldb.evidence.store import EXPERIMENTS, JOURNAL, SEALED, copy_atomic, read_sealed
from epldb.problems import Location, Problem

RULE = "evidence-merge"
ENV = ".env.json"


@dataclass(frozen=True)
class Incoming:
    """One run to merge: its sealed rows and its environment, where they were found."""

    run: str
    parquet: Path
    env: Path

    @property
    def experiment(self) -> bool:
        return self.parquet.parent.name == EXPERIMENTS


@dataclass
class MergeResult:
    problems: list[Problem] = field(default_factory=list)
    merged: list[tuple[Incoming, Path]] = field(default_factory=list)  # with the parquet's destination
    present: list[tuple[Incoming, Path]] = field(default_factory=list)  # already there, same content

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


def _problem(path: Path, message: str) -> Problem:
    return Problem(Location(path.as_posix()), message, RULE)


def gather(paths: Iterable[Path]) -> tuple[list[Incoming], list[Problem]]:
    """The runs that ``paths`` (files or folders, searched below) hold, one per sealed file, and the
    problems of what is not a sealed run with its environment."""
    parquets: dict[Path, None] = {}
    problems: list[Problem] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            files = [path]
        else:
            problems.append(_problem(path, "no such file or folder"))
            continue
        for f in files:
            name = f.name
            if name.endswith(SEALED):
                parquets[f] = None
            elif name.endswith(ENV):
                partner = f.with_name(name[: -len(ENV)] + SEALED)
                if partner.is_file():
                    parquets[partner] = None
                else:
                    problems.append(_problem(f, f"an environment without its run: no {partner.name} beside it"))
            elif name.endswith(JOURNAL):
                problems.append(_problem(f, "a run journal, not a sealed run: seal it first with "
                                         "'epldb evidence seal' where it lies, then merge the .parquet"))
            elif path.is_file():  # a file named on its own; stray files in a folder are left alone
                problems.append(_problem(f, "not an evidence file (<run>.parquet with <run>.env.json)"))
    incoming = []
    for parquet in parquets:
        run = parquet.name[: -len(SEALED)]
        env = parquet.with_name(run + ENV)
        if not env.is_file():
            problems.append(_problem(parquet, f"no environment beside the run ({env.name}): a run is merged with "
                                     "its environment or not at all"))
            continue
        incoming.append(Incoming(run, parquet, env))
    return incoming, problems


def _read_env(item: Incoming) -> tuple[dict[str, Any] | None, list[Problem]]:
    try:
        env = json.loads(item.env.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return None, [_problem(item.env, f"does not parse as JSON: {e}")]
    if not isinstance(env, dict):
        return None, [_problem(item.env, "not a JSON object (an environment record was expected)")]
    if env.get("run") != item.run:
        return env, [_problem(item.env, f"the environment is of run {env.get('run')!r}, not {item.run!r}")]
    return env, []


def _read_rows(item: Incoming) -> tuple[list[dict[str, str]] | None, list[Problem]]:
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(item.parquet).names
        rows = read_sealed(item.parquet)
    except Exception as e:  # noqa: BLE001 - pyarrow reports a bad file as several types
        return None, [_problem(item.parquet, f"does not parse as Parquet: {type(e).__name__}: {e}")]
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        return None, [_problem(item.parquet, f"not an evidence run: columns {', '.join(missing)} are missing")]
    wrong = [i for i, r in enumerate(rows) if r["run"] != item.run]
    if wrong:
        return rows, [_problem(item.parquet, f"row {wrong[0] + 1} (and {len(wrong) - 1} more) names run "
                               f"{rows[wrong[0]]['run']!r}, not {item.run!r}: the rows are not this run's")]
    return rows, []


def _existing(base: Path, run: str) -> list[Path]:
    """Every file of ``run`` under ``base`` (evidence/): sealed, journal or environment."""
    found: list[Path] = []
    for pattern in ("*/{}", f"*/{EXPERIMENTS}/{{}}"):
        for suffix in (SEALED, JOURNAL, ENV):
            found += sorted(base.glob(pattern.format(run + suffix)))
    return found


def _same_run(item: Incoming, rows: list[dict[str, str]], env: dict[str, Any], dest: Path) -> bool:
    dest_env = dest.with_name(item.run + ENV)
    if dest.read_bytes() == item.parquet.read_bytes() and dest_env.is_file() \
            and dest_env.read_bytes() == item.env.read_bytes():
        return True
    try:  # the same rows and environment written anew (another zstd level, another JSON indent)
        return read_sealed(dest) == rows and json.loads(dest_env.read_text(encoding="utf-8")) == env
    except Exception:  # noqa: BLE001 - an unreadable run already there is not this run
        return False


def plan_merge(root: Path, paths: Iterable[Path], devices: Mapping[str, set[str]] | None = None) -> MergeResult:
    """What merging ``paths`` into ``root/evidence`` would do, checked; writes nothing."""
    base = Path(root) / "evidence"
    incoming, problems = gather(paths)
    result = MergeResult(problems)
    landing: dict[Path, tuple[Incoming, list[dict[str, str]], dict[str, Any]]] = {}
    for item in incoming:
        env, env_problems = _read_env(item)
        rows, row_problems = _read_rows(item)
        found = env_problems + row_problems
        if env is None or rows is None or found:
            result.problems += found
            continue
        folder = env.get("device_slug") if isinstance(env.get("device_slug"), str) else None
        if folder is None:
            from epldb.device import slug_of

            folder = slug_of(str(env.get("gpu", "")))
        mismatch = board_mismatch(env, folder, devices)
        # Where the run came from says which board too, when it lay in a device folder of its own.
        source = item.parquet.parent.parent if item.experiment else item.parquet.parent
        if source.name != folder and (base / source.name).is_dir() and source.name != "static":
            mismatch.append(f"it lies in device folder {source.name}, but its environment's board is {folder}")
        if mismatch:
            result.problems.append(_problem(item.env, "not merged: " + "; ".join(mismatch)))
            continue
        dest = base / folder / (EXPERIMENTS if item.experiment else "") / (item.run + SEALED)
        if dest in landing:
            first = landing[dest]
            if first[1] == rows and first[2] == env:
                result.present.append((item, dest))
            else:
                result.problems.append(_problem(item.parquet, f"run {item.run} is given twice with different "
                                                f"content (also {first[0].parquet.as_posix()})"))
            continue
        elsewhere = [p for p in _existing(base, item.run) if p.parent != dest.parent]
        journal = dest.with_suffix(JOURNAL)
        if elsewhere:
            result.problems.append(_problem(item.parquet, f"run {item.run} already exists at "
                                            f"{elsewhere[0].relative_to(root).as_posix()}: a run id is never reused"))
        elif journal.exists():
            result.problems.append(_problem(item.parquet, f"run {item.run} has an unsealed journal at "
                                            f"{journal.relative_to(root).as_posix()}: seal it first"))
        elif dest.exists():
            if _same_run(item, rows, env, dest):
                result.present.append((item, dest))
            else:
                result.problems.append(_problem(item.parquet, f"run {item.run} already exists at "
                                                f"{dest.relative_to(root).as_posix()} with other content: evidence is "
                                                "append-only and a run id is never reused"))
        elif dest.with_name(item.run + ENV).exists():
            result.problems.append(_problem(item.parquet, f"run {item.run} has an environment at "
                                            f"{dest.parent.relative_to(root).as_posix()} without its rows"))
        else:
            landing[dest] = (item, rows, env)
            result.merged.append((item, dest))
    return result


def merge(root: Path, paths: Iterable[Path], devices: Mapping[str, set[str]] | None = None) -> MergeResult:
    """Merge ``paths`` into ``root/evidence`` (see the module's notes): nothing written unless every
    run is accepted."""
    result = plan_merge(root, paths, devices)
    if result.ok:
        for item, dest in result.merged:
            copy_atomic(item.env, dest.with_name(item.run + ENV))
            copy_atomic(item.parquet, dest)
    return result
