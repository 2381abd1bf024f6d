"""Evidence files: measured rows, append-only, with the run's environment beside them.

Layout: ``evidence/<device-slug>/<run-id>.csv`` and ``evidence/<device-slug>/<run-id>.env.json``.
Machines write these files; humans never edit them.

Writing is append-only and crash-safe: each row is one whole CSV line written with a single
``write`` on an ``O_APPEND`` descriptor and fsynced, so an interrupted run keeps every row already
written; at worst the last line is cut short, and both the reader and a resuming writer drop a
line without its newline. ``--resume RUN`` reopens a run and skips rows whose key is present.

Reading: :func:`load_evidence` gives every row of every device as a pandas DataFrame, with a
``stale`` column: a realization row is stale when the content hash of its kernel (with everything
it includes) no longer matches the repository's. :func:`newest_fresh` keeps, per measured
instance, the newest non-stale row.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import platform
import secrets
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.problems import Problem

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog

COLUMNS: tuple[str, ...] = (
    "run",
    "subject",
    "kind",  # realization | peer | ceiling
    "params",  # JSON object, sorted keys
    "dtype",
    "shape",  # JSON object, sorted keys
    "status",  # passed | incorrect | compile-error | runtime-error | skipped
    "err_max_rel",
    "err_rel_l2",
    "deterministic",
    "time_ms_median",
    "time_ms_p10",
    "time_ms_p90",
    "gbps",
    "gflops",
    "frac_ceiling",
    "target",
    "nvrtc",
    "source_hash",
    "detail",
)

KINDS = ("realization", "peer", "ceiling")
STATUSES = ("passed", "incorrect", "compile-error", "runtime-error", "skipped")
#: The columns that identify what a row measured; a run holds at most one row per key.
KEY_COLUMNS = ("subject", "kind", "params", "dtype", "shape")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class Row:
    """One measurement: a realization at a point and shape, a peer, or a ceiling."""

    subject: str
    kind: str
    params: dict[str, Any]
    dtype: str
    shape: dict[str, Any]
    status: str
    err_max_rel: float | None = None
    err_rel_l2: float | None = None
    deterministic: bool | None = None
    time_ms_median: float | None = None
    time_ms_p10: float | None = None
    time_ms_p90: float | None = None
    gbps: float | None = None
    gflops: float | None = None
    frac_ceiling: float | None = None
    target: str = ""
    nvrtc: str = ""
    source_hash: str = ""
    detail: str = ""

    def key(self) -> tuple[str, ...]:
        return (self.subject, self.kind, canonical_json(self.params), self.dtype, canonical_json(self.shape))

    def cells(self, run: str) -> list[str]:
        d = asdict(self)
        out: list[str] = []
        for col in COLUMNS:
            if col == "run":
                out.append(run)
            elif col in ("params", "shape"):
                out.append(canonical_json(d[col]))
            else:
                out.append(_cell(d[col]))
        return out


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.6g}"
    return " ".join(str(v).split())  # one line, no stray whitespace


def csv_line(cells: list[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    return buf.getvalue()


# --- ids, folders, environment -------------------------------------------------------------------


def new_run_id(kind: str, now: datetime | None = None) -> str:
    """``20261118T153012Z-bench-3fa2``: sorts by time; the suffix keeps parallel runs apart."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{kind}-{secrets.token_hex(2)}"


def git_commit(root: Path) -> tuple[str, bool | None]:
    """The commit the run's tree is: $EPL_GIT_COMMIT when set (with $EPL_GIT_DIRTY, "1" or "0", if
    given), else HEAD's commit and whether kernels/, epldb/ or catalog/ differ from it, else "unknown".

    The variable wins because a lent GPU machine runs a copy of the working tree over git metadata
    of its own (the lending tool's snapshot, from when the session began): there HEAD names an
    older commit and every later change reads as dirty."""
    given = os.environ.get("EPL_GIT_COMMIT", "").strip()
    if given:
        flag = os.environ.get("EPL_GIT_DIRTY", "").strip()
        return given, {"1": True, "0": False}.get(flag)
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=20)
        if head.returncode == 0 and head.stdout.strip():
            status = subprocess.run(["git", "status", "--porcelain", "--", "kernels", "epldb", "catalog"], cwd=root,
                                    capture_output=True, text=True, timeout=20)
            dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
            return head.stdout.strip(), dirty
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown", None


_SMI_FIELDS = ["driver_version", "uuid", "pci.bus_id", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem", "power.limit",
               "pstate", "persistence_mode", "compute_mode", "temperature.gpu"]


def _nvidia_smi(index: int, fields: list[str] | None = None) -> dict[str, str]:
    """Read-only nvidia-smi query of the driver and clocks (never changes any setting)."""
    fields = fields or _SMI_FIELDS
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--id={index}", f"--query-gpu={','.join(fields)}", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0 or not out.stdout.strip():
        # An older nvidia-smi may not know one of the fields: the driver version alone, then.
        return _nvidia_smi(index, ["driver_version"]) if len(fields) > 1 else {}
    values = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
    return dict(zip(fields, values))


def _version(module: str) -> str | None:
    try:
        mod = __import__(module)
    except Exception:  # noqa: BLE001 - an optional package that fails to import has no version here
        return None
    return str(getattr(mod, "__version__", "unknown"))


def collect_environment(root: Path, run_id: str, command: str) -> dict[str, Any]:
    """The run's environment record (GPU, versions, clocks, commit, time); ceilings come later."""
    import cupy

    from epldb.compile.toolchain import find_toolchain
    from epldb.runner import device_info

    dev = device_info()
    rt = cupy.cuda.runtime
    commit, dirty = git_commit(root)
    smi = _nvidia_smi(dev.index)
    return {
        "run": run_id,
        "command": command,
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "gpu": dev.name,
        "device_slug": dev.slug,
        "compute_capability": f"{dev.compute_capability[0]}.{dev.compute_capability[1]}",
        "sm_count": dev.sm_count,
        "l2_bytes": dev.l2_bytes,
        "memory_bytes": dev.total_memory,
        "driver": smi.get("driver_version"),
        "driver_cuda_version": rt.driverGetVersion(),
        "cuda_runtime_version": rt.runtimeGetVersion(),
        "nvrtc": find_toolchain().nvrtc_version,
        "cuda_headers": find_toolchain().headers_version,
        "cupy": cupy.__version__,
        "torch": _version("torch"),
        "numpy": _version("numpy"),
        "python": platform.python_version(),
        # Which board: runs on two H200s can differ where a kernel's clusters depend on how the
        # board's GPCs place them (a persistent cluster grid).
        "gpu_uuid": smi.get("uuid"),
        "pci_bus_id": smi.get("pci.bus_id"),
        "clocks": {k: v for k, v in smi.items() if k not in ("driver_version", "uuid", "pci.bus_id")},
        "cluster_places": _cluster_places(dev),
        "cupy_accelerators": os.environ.get("CUPY_ACCELERATORS", "(default)"),
        "git_commit": commit,
        "git_dirty": dirty,
        "ceilings": {},
    }


def _cluster_places(dev: Any) -> dict[str, int] | str | None:
    """Clusters of 2 to 16 blocks the board places at once at one block an SM (epldb.occupancy):
    what a persistent cluster grid gets here. None before compute capability 9.0 (no clusters);
    the driver's refusal as text, so that the run goes on."""
    if dev.compute_capability < (9, 0):
        return None
    from epldb.occupancy import cluster_places

    try:
        return {str(size): n for size, n in cluster_places(dev.max_shared_optin).items()}
    except Exception as exc:  # noqa: BLE001 (a record of the environment must not stop the run)
        return f"not measured: {type(exc).__name__}: {exc}"


def write_json_atomic(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2, sort_keys=True, default=str)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; evidence is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- writing ---------------------------------------------------------------------------------------


def _repair_tail(path: Path) -> None:
    """Cut a last line that lacks its newline (a write interrupted mid-line)."""
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def read_rows(path: Path) -> list[dict[str, str]]:
    """The complete rows of one evidence CSV (a cut-short last line is ignored)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text)))


@dataclass
class EvidenceWriter:
    """Appends rows of one run to ``<dir>/<run>.csv``; keeps ``<run>.env.json`` beside it."""

    directory: Path
    run_id: str
    env: dict[str, Any] = field(default_factory=dict)
    _keys: set[tuple[str, ...]] = field(default_factory=set, init=False)
    _fd: int | None = field(default=None, init=False)
    rows_written: int = field(default=0, init=False)

    @property
    def csv_path(self) -> Path:
        return self.directory / f"{self.run_id}.csv"

    @property
    def env_path(self) -> Path:
        return self.directory / f"{self.run_id}.env.json"

    def open(self) -> "EvidenceWriter":
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.csv_path.exists():
            _repair_tail(self.csv_path)
            for r in read_rows(self.csv_path):
                self._keys.add(tuple(r.get(c, "") for c in KEY_COLUMNS))
            if self.env_path.exists() and not self.env:
                self.env = json.loads(self.env_path.read_text(encoding="utf-8"))
        self._fd = os.open(self.csv_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if os.fstat(self._fd).st_size == 0:
            self._write(csv_line(list(COLUMNS)))
        if self.env:
            write_json_atomic(self.env_path, self.env)
        return self

    def __enter__(self) -> "EvidenceWriter":
        return self.open() if self._fd is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, line: str) -> None:
        assert self._fd is not None, "open() the writer first"
        data = line.encode("utf-8")
        written = os.write(self._fd, data)
        if written != len(data):  # a short write on a regular file means a full disk
            raise OSError(f"short write to {self.csv_path} ({written} of {len(data)} bytes)")
        os.fsync(self._fd)

    def has(self, row: Row) -> bool:
        return row.key() in self._keys

    def has_key(self, key: tuple[str, ...]) -> bool:
        return key in self._keys

    def append(self, row: Row) -> bool:
        """Write ``row`` unless the run already holds its key; True when written."""
        if row.key() in self._keys:
            return False
        self._write(csv_line(row.cells(self.run_id)))
        self._keys.add(row.key())
        self.rows_written += 1
        return True

    def update_env(self, **fields: Any) -> None:
        self.env.update(fields)
        write_json_atomic(self.env_path, self.env)

    def existing(self) -> list[dict[str, str]]:
        return read_rows(self.csv_path)


def open_run(out_dir: Path, device_slug: str, run_id: str, env: dict[str, Any]) -> EvidenceWriter:
    return EvidenceWriter(Path(out_dir) / device_slug, run_id, env).open()


def find_run(out_dir: Path, run_id: str) -> Path | None:
    """The device folder holding ``run_id`` (for --resume), or None."""
    for path in sorted(Path(out_dir).glob(f"*/{run_id}.csv")):
        return path.parent
    return None


# --- reading ---------------------------------------------------------------------------------------


def evidence_files(root: Path) -> Iterator[Path]:
    base = Path(root) / "evidence"
    if base.is_dir():
        yield from sorted(base.glob("*/*.csv"))


def current_hashes(root: Path, catalog: "Catalog") -> dict[str, str]:
    """Realization id → content hash of its kernel and includes, as the repository stands."""
    from epldb.compile.hashing import source_hash

    return {rid: source_hash(root, r.kernel.source) for rid, r in catalog.realizations.items()}


_NUMERIC = ("err_max_rel", "err_rel_l2", "time_ms_median", "time_ms_p10", "time_ms_p90", "gbps", "gflops",
            "frac_ceiling")


def load_evidence(root: Path | None = None, catalog: "Catalog | None" = None) -> "pandas.DataFrame":
    """Every evidence row under ``root/evidence`` with ``device`` and ``stale`` columns added.

    A realization row is stale when its ``source_hash`` differs from the kernel's current hash, or
    the realization is gone from the catalog; peer and ceiling rows are never stale.
    """
    import pandas as pd

    if catalog is None:
        from epldb.runner import default_catalog

        catalog = default_catalog(root)
    root = Path(root) if root is not None else catalog.root
    frames = []
    for path in evidence_files(root):
        rows = read_rows(path)
        if not rows:
            continue
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        frame["device"] = path.parent.name
        frame["file"] = path.relative_to(root).as_posix()
        frames.append(frame)
    columns = list(COLUMNS) + ["device", "file", "stale"]
    if not frames:
        return pd.DataFrame(columns=columns)
    df = pd.concat(frames, ignore_index=True)
    for col in _NUMERIC:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df["deterministic"] = df["deterministic"].map({"true": True, "false": False})
    hashes = current_hashes(root, catalog)
    is_real = df["kind"] == "realization"
    current = df["subject"].map(hashes)
    df["stale"] = is_real & (current.isna() | (df["source_hash"] != current))
    return df[columns]


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


# --- the lint rule's logic -----------------------------------------------------------------------------

RULE = "evidence-fresh"
_FAILED = ("incorrect", "compile-error", "runtime-error")


def evidence_problems(catalog: "Catalog", df: "pandas.DataFrame | None" = None) -> list[Problem]:
    """A ``verified`` realization needs fresh passing evidence on at least one device, with no
    fresh failure among the newest rows of that device (error at its ``status`` line); every
    ``draft`` realization gets a notice saying what evidence it has."""
    if df is None:
        df = load_evidence(catalog.root, catalog)
    newest = newest_fresh(df[df["kind"] == "realization"]) if len(df) else df
    problems: list[Problem] = []
    for rid, r in sorted(catalog.realizations.items()):
        mine = newest[newest["subject"] == rid] if len(newest) else newest
        stale = int(((df["subject"] == rid) & df["stale"].astype(bool)).sum()) if len(df) else 0
        devices_ok: list[str] = []
        failures: list[str] = []
        for device, rows in (mine.groupby("device") if len(mine) else []):
            bad = rows[rows["status"].isin(_FAILED)]
            if len(bad):
                first = bad.iloc[0]
                failures.append(f"{device}: {first['status']} at {first['params']} {first['shape']} (run {first['run']})")
            elif (rows["status"] == "passed").any():
                devices_ok.append(str(device))
        loc = r.loc("status")
        if r.status == "verified":
            if failures:
                problems.append(Problem(loc, "status is verified but the newest fresh evidence fails: " + "; ".join(failures[:3]),
                                        RULE, "$.status"))
            elif not devices_ok:
                why = f" ({stale} stale row(s): the kernel changed since they were measured)" if stale else ""
                problems.append(Problem(loc, f"status is verified but there is no fresh passing evidence on any GPU{why}; "
                                        "run 'epldb verify " + rid + "' on a GPU or set status: draft", RULE, "$.status"))
        else:
            if devices_ok and not failures:
                msg = f"draft; fresh passing evidence exists on {', '.join(devices_ok)}: it may be marked verified"
            elif failures:
                msg = "draft; fresh evidence fails: " + "; ".join(failures[:3])
            else:
                msg = "draft: no fresh evidence yet" + (f" ({stale} stale row(s))" if stale else "")
            problems.append(Problem(loc, msg, RULE, "$.status", "notice"))
    return problems


def summarize(rows: Iterable[Row]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    return counts
