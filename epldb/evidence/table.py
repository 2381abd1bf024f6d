"""Evidence as one tidy table: every sealed run's rows, typed, with their provenance beside them.

:func:`load_evidence` returns a pandas DataFrame with one row per measurement:

- the stored columns (epldb.evidence.row.COLUMNS): ``run``, ``subject``, ``kind``, ``params`` and
  ``shape`` (canonical JSON, the key), ``dtype``, ``status``, errors, times, rates, ``target``,
  ``nvrtc``, ``source_hash``, ``detail``; numbers as float64, ``deterministic`` as a boolean (or NA);
- every shape field and every parameter as a typed column of its own: shape ``rows``, ``cols``,
  ``n``, ``dim``, ``bytes``; parameters ``block``, ``items``, ``cluster``, ... (integers as Int64,
  text as strings, NA where a row's subject has no such field). A parameter whose name is also a
  column (``dtype``: a peer's compute type) is ``param_<name>``. ``SHAPE_FIELDS`` and
  ``PARAM_FIELDS`` on the frame's ``attrs`` name them;
- ``device`` (the folder), ``file`` (repository-relative), ``run_kind`` (verify, bench,
  experiment: from the run id, experiment when the run is an experiment's), ``utc`` and ``commit``
  (from the run's environment; empty when the run has none);
- ``stale``: a realization row is stale when the kernel it measured is not the kernel the repository
  compiles today (epldb.evidence.freshness); peer and ceiling rows are never stale.

Filters: ``fresh=True`` keeps non-stale rows, ``device``, ``run_kind`` and ``kind`` keep the rows
with those values (a string or a collection of them). Experiments' runs (which time modified
kernels) are left out unless ``experiments=True``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.evidence.row import BOOLEAN, COLUMNS, KEY_COLUMNS, NUMERIC
from epldb.evidence.store import EXPERIMENTS, device_of, run_files

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog

EXTRA_COLUMNS = ("device", "file", "run_kind", "utc", "commit", "stale")


def kind_of_run(run_id: str, experiment: bool = False) -> str:
    """``20261118T153012Z-bench-3fa2`` → ``bench``; an experiment's run is ``experiment``."""
    if experiment:
        return "experiment"
    parts = run_id.split("-")
    return parts[1] if len(parts) >= 3 else ""


def _environment(path: Path) -> dict[str, Any]:
    env_path = path.with_name(path.name[: -len(path.suffix)] + ".env.json")
    try:
        loaded = json.loads(env_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _read_all(root: Path, files: list[Path]) -> "pandas.DataFrame":
    import pandas as pd
    import pyarrow as pa
    import pyarrow.dataset as ds

    from epldb.evidence.store import arrow_schema

    if not files:
        return pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in COLUMNS})
    dataset = ds.dataset([str(p) for p in files], schema=arrow_schema(), format="parquet")
    table = dataset.to_table()
    # Which file each row came from: the files are read in order, one fragment each.
    counts = [f.count_rows() for f in dataset.get_fragments()]
    frame = table.to_pandas(types_mapper={pa.string(): pd.StringDtype("pyarrow")}.get)
    for column in BOOLEAN:
        frame[column] = frame[column].astype("boolean")
    frame["__file"] = pd.Categorical.from_codes(
        [i for i, n in enumerate(counts) for _ in range(n)], categories=[p.relative_to(root).as_posix() for p in files])
    return frame


def _dtype(column: str) -> str:
    return "float64" if column in NUMERIC else "boolean" if column in BOOLEAN else "string"


def _expand(df: "pandas.DataFrame", column: str, taken: set[str], prefix: str) -> list[str]:
    """Each field of the JSON objects in ``column`` as a typed column; returns their names."""
    import pandas as pd

    codes, uniques = pd.factorize(df[column])
    parsed = [json.loads(u) if u else {} for u in uniques]
    names = sorted({k for obj in parsed if isinstance(obj, dict) for k in obj})
    out = []
    for name in names:
        values = [obj.get(name) if isinstance(obj, dict) else None for obj in parsed]
        col = f"{prefix}{name}" if name in taken else name
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            per_unique = pd.array(values, dtype="Int64")
        elif present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
            per_unique = pd.array([None if v is None else float(v) for v in values], dtype="Float64")
        else:
            per_unique = pd.array([None if v is None else str(v) for v in values], dtype="string")
        df[col] = per_unique.take(codes, allow_fill=True) if len(df) else per_unique[:0]
        taken.add(col)
        out.append(col)
    return out


def load_evidence(root: Path | None = None, catalog: "Catalog | None" = None, *, fresh: bool | None = None,
                  device: str | Iterable[str] | None = None, run_kind: str | Iterable[str] | None = None,
                  kind: str | Iterable[str] | None = None, experiments: bool = False) -> "pandas.DataFrame":
    """Every sealed evidence row under ``root/evidence`` as a tidy table (see the module's notes)."""
    import pandas as pd

    from epldb.evidence.freshness import rekey_grown_points, stale_mask

    if catalog is None:
        from epldb.catalog import default_catalog

        catalog = default_catalog(root)
    root = Path(root) if root is not None else catalog.root
    files = list(run_files(root, experiments=experiments))
    df = _read_all(root, files)
    file_col = df.pop("__file") if "__file" in df else pd.Series([], dtype="string")
    envs = [_environment(p) for p in files]
    per_file = {  # one value per run file, spread over its rows through the file's code
        "device": [device_of(p) for p in files],
        "file": [p.relative_to(root).as_posix() for p in files],
        "run_kind": [kind_of_run(p.stem, p.parent.name == EXPERIMENTS) for p in files],
        "utc": [str(e.get("utc") or "") for e in envs],
        "commit": [str(e.get("git_commit") or "") for e in envs],
    }
    codes = file_col.cat.codes.to_numpy() if len(df) else []
    for col, values in per_file.items():
        df[col] = pd.array(values, dtype="string").take(codes) if len(df) else pd.Series([], dtype="string")
    # Rows of points measured before the realization gained a parameter take today's point where the
    # machine code is the same (epldb.evidence.freshness.rekey_grown_points): fresh by that proof.
    if len(df):
        rekeyed, facts = rekey_grown_points(df, catalog)
        df["stale"] = stale_mask(df, catalog, facts) & ~rekeyed
    else:
        df["stale"] = pd.Series([], dtype=bool)
    taken = set(COLUMNS) | set(EXTRA_COLUMNS)
    shape_fields = _expand(df, "shape", taken, "shape_")
    param_fields = _expand(df, "params", taken, "param_")
    df = df[[*COLUMNS, *shape_fields, *param_fields, *EXTRA_COLUMNS]]
    df = _filter(df, fresh=fresh, device=device, run_kind=run_kind, kind=kind)
    df.attrs["SHAPE_FIELDS"] = shape_fields
    df.attrs["PARAM_FIELDS"] = param_fields
    return df


def _filter(df: "pandas.DataFrame", **wanted: Any) -> "pandas.DataFrame":
    fresh = wanted.pop("fresh")
    if fresh is not None:
        df = df[~df["stale"] if fresh else df["stale"]]
    for column, value in wanted.items():
        if value is not None:
            df = df[df[column].isin([value] if isinstance(value, str) else list(value))]
    return df.reset_index(drop=True)


def newest_fresh(df: "pandas.DataFrame", *, passing: bool = False, timed: bool | None = None) -> "pandas.DataFrame":
    """Per (device, subject, kind, params, dtype, shape): the newest non-stale row.

    ``passing=True`` then keeps only those whose status is passed (the newest row decides: an
    older pass does not outvote a newer failure). ``timed=True`` looks only at rows with a time
    (bench), ``timed=False`` only at rows without (verify), None at both.
    """
    fresh = df[~df["stale"].astype(bool)]
    if timed is True:
        fresh = fresh[fresh["time_ms_median"].notna()]
    elif timed is False:
        fresh = fresh[fresh["time_ms_median"].isna()]
    keys = ["device", *KEY_COLUMNS]
    newest = fresh.sort_values("run", kind="stable").groupby(keys, sort=False, dropna=False).tail(1)
    if passing:
        newest = newest[newest["status"] == "passed"]
    return newest.sort_values(keys).reset_index(drop=True)


