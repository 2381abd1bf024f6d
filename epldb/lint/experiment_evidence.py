"""An experiment's runs are stored where its record says, and every stored experiment run belongs to
the experiment its environment names.

Runs of kind experiment live at ``evidence/<device>/experiments/<run>.parquet`` (the run sealed by
``epldb evidence seal`` from the runner's journal ``<run>.csv``) with ``<run>.env.json`` beside it,
whose ``"experiment"`` is the experiment's id. They time modified copies of kernels, so they are
never a realization's evidence. Each run an experiment lists under ``evidence`` exists there with its
environment naming it; each run stored there is listed by that experiment; a stored run is readable
Parquet whose columns are exactly the evidence columns (``epldb.evidence.COLUMNS``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.evidence.row import COLUMNS
from epldb.problems import Location, Problem, json_path

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "experiment-evidence"
FOLDER = "experiments"  # under evidence/<device>/
SUFFIX = ".parquet"  # the run sealed by epldb.evidence (epldb evidence seal)
ENV_SUFFIX = ".env.json"


@dataclass
class StoredRun:
    """One run of kind experiment as found on disk."""

    run: str
    data: Path | None
    env_path: Path | None
    env: dict[str, Any] | None = None
    env_error: str = ""

    @property
    def experiment(self) -> str | None:
        value = self.env.get("experiment") if self.env else None
        return value if isinstance(value, str) else None


def stored_runs(root: Path) -> dict[str, StoredRun]:
    """Every run under ``root/evidence/*/experiments/``, by run id (a .parquet, its env.json, or both)."""
    runs: dict[str, StoredRun] = {}
    for folder in sorted((root / "evidence").glob(f"*/{FOLDER}")):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.name.endswith(SUFFIX):
                run = path.name[: -len(SUFFIX)]
                runs.setdefault(run, StoredRun(run, None, None)).data = path
            elif path.name.endswith(ENV_SUFFIX):
                run = path.name[: -len(ENV_SUFFIX)]
                runs.setdefault(run, StoredRun(run, None, None)).env_path = path
    for stored in runs.values():
        if stored.env_path is None:
            continue
        try:
            loaded = json.loads(stored.env_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            stored.env_error = f"cannot read it: {exc}"
            continue
        if isinstance(loaded, dict):
            stored.env = loaded
        else:
            stored.env_error = "it is not a JSON object"
    return runs


def _columns_problem(path: Path) -> str | None:
    """Why ``path`` is not a sealed evidence run (readable Parquet whose columns are exactly
    ``epldb.evidence.COLUMNS``), or None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    seal = f"seal the run with `epldb evidence seal` from its journal {path.name[: -len(SUFFIX)]}.csv"
    try:
        names = pq.read_schema(path).names
    except (OSError, pa.ArrowException):
        return f"it is not a readable Parquet file: {seal}"
    if names != list(COLUMNS):
        return f"its columns are not the evidence columns ({', '.join(COLUMNS[:3])}, ...): {seal}"
    return None


def check(catalog: "Catalog") -> Iterator[Problem]:
    root = catalog.root
    runs = stored_runs(root)
    listed: dict[str, str] = {}
    for e in catalog.experiments.values():
        for i, run in enumerate(e.evidence):
            listed.setdefault(run, e.id)
            stored = runs.get(run)
            loc, path = e.loc("evidence", i), json_path(("evidence", i))
            if stored is None or stored.data is None:
                yield Problem(loc, f"no run '{run}' under evidence/<device>/{FOLDER}/: store it there as "
                              f"{run}{SUFFIX} (sealed with `epldb evidence seal` from the runner's journal "
                              f"{run}.csv) with its {run}{ENV_SUFFIX}", RULE, path)
            elif stored.env_path is None:
                yield Problem(loc, f"run '{run}' has no {run}{ENV_SUFFIX} beside it", RULE, path)
            elif stored.env is not None and stored.experiment != e.id:
                named = f"'{stored.experiment}'" if stored.experiment else "no experiment"
                yield Problem(loc, f"the environment of run '{run}' names {named}, not '{e.id}': set its "
                              f"\"experiment\" to '{e.id}'", RULE, path)
    invalid = catalog.invalid_ids("experiment")
    for run, stored in sorted(runs.items()):
        first = stored.data or stored.env_path
        assert first is not None
        where = Location(first.relative_to(root).as_posix())
        if stored.data is None:
            yield Problem(where, f"an environment without its run: {run}{SUFFIX} is missing beside it", RULE)
            continue
        if (why := _columns_problem(stored.data)) is not None:
            yield Problem(where, why, RULE)
        if stored.env_error:
            assert stored.env_path is not None
            yield Problem(Location(stored.env_path.relative_to(root).as_posix()), stored.env_error, RULE)
            continue
        owner = stored.experiment
        if owner in invalid or run in listed:
            continue  # listed: any mismatch is reported at the listing; invalid: its own problems say
        if owner is None:
            yield Problem(where, "an experiment run that names no experiment: add \"experiment\": \"<id>\" to "
                          f"{run}{ENV_SUFFIX} and list the run in that experiment's evidence", RULE)
        elif owner not in catalog.experiments:
            yield Problem(where, f"its environment names experiment '{owner}', which is not in the catalog", RULE)
        else:
            yield Problem(where, f"experiment '{owner}' does not list this run: add '{run}' to the evidence of "
                          f"{catalog.experiments[owner].file}", RULE)
