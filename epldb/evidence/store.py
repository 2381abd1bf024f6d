"""Evidence files: one sealed Parquet file per run, written from an append-only journal.

Layout: ``evidence/<device-slug>/<run-id>.parquet`` with ``<run-id>.env.json`` beside it; runs of
experiments (catalog/experiments/) under ``evidence/<device-slug>/experiments/``. Machines write
these files; humans never edit them.

While a run measures, its rows go to a journal, ``<run-id>.csv`` in the same folder: each row is one
whole CSV line written with a single ``write`` on an ``O_APPEND`` descriptor and fsynced, so an
interrupted run keeps every row already written; at worst the last line is cut short, and both the
reader and a resuming writer drop a line without its newline. When the run ends, the writer seals
it: the rows (with any sealed ones of the same run, after ``--resume``) go to a temporary Parquet
file, fsynced, renamed over ``<run-id>.parquet``, and only then is the journal removed, so at every
instant the run's rows are complete in one of the two. A journal left by a killed run is sealed by
``epldb evidence seal`` (or resumed with ``--resume RUN``); ``epldb validate`` reports one that was
not. The loaders read sealed runs only.

Why Parquet: typed columns (numbers as float64, the determinism flag as a boolean), strings
dictionary-encoded (a run repeats its source hashes, shapes and details thousands of times), zstd
compression (the 52 MB of CSV that 120 runs had grown to take 6.5 MB), and every committed run reads
in about a third of a second through pyarrow, which pandas reads natively. gzip CSV was measured
too: smaller (3.8 MB) but 0.9 s to parse, over the second the data layer allows for all of it.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from epldb.evidence.row import BOOLEAN, COLUMNS, KEY_COLUMNS, NUMERIC, Row, csv_line

if TYPE_CHECKING:
    import pyarrow

SEALED = ".parquet"
JOURNAL = ".csv"
EXPERIMENTS = "experiments"


def _write_atomic(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """``write`` into a temporary file beside ``path``, fsynced, then renamed over it: a reader sees the
    old file or the new one, never part of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; evidence is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def drop_leftover_temporaries(path: Path) -> list[Path]:
    """Remove the temporaries a killed ``_write_atomic`` of ``path`` left beside it (a kill skips its
    clean-up); the file itself is whole, old or new. Only for a path no live process is writing."""
    left = sorted(path.parent.glob(f".{path.name}.*.tmp"))
    for tmp in left:
        tmp.unlink(missing_ok=True)
    return left


def copy_atomic(source: Path, path: Path) -> None:
    """``source``'s bytes at ``path``, atomically (a run brought from elsewhere, byte for byte)."""
    data = Path(source).read_bytes()
    _write_atomic(path, lambda f: f.write(data))


def write_json_atomic(path: Path, payload: Any) -> None:
    text = json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n"
    _write_atomic(path, lambda f: f.write(text.encode("utf-8")))


# --- the sealed form ----------------------------------------------------------------------------------


def arrow_schema() -> "pyarrow.Schema":
    import pyarrow as pa

    return pa.schema([(c, pa.float64() if c in NUMERIC else pa.bool_() if c in BOOLEAN else pa.string())
                      for c in COLUMNS])


def _typed(column: str, cell: str) -> Any:
    """A journal cell as the sealed column holds it; ``cells_of`` gives the same text back."""
    if column in NUMERIC:
        return None if cell == "" else float(cell)
    if column in BOOLEAN:
        return {"true": True, "false": False, "": None}[cell]
    return cell


def _text(column: str, value: Any) -> str:
    if column in NUMERIC:
        if value is None:
            return ""
        return "nan" if math.isnan(value) else f"{value:.6g}"
    if column in BOOLEAN:
        return "" if value is None else ("true" if value else "false")
    return value


def write_sealed(path: Path, rows: list[dict[str, str]]) -> None:
    """``rows`` (journal cells by column) as one Parquet file at ``path``, atomically."""
    import pyarrow as pa

    table = pa.table({c: [_typed(c, r.get(c, "")) for r in rows] for c in COLUMNS}, schema=arrow_schema())
    write_parquet_atomic(path, table)


def write_parquet_atomic(path: Path, table: "pyarrow.Table") -> None:
    """``table`` as zstd Parquet at ``path``, atomically."""
    import pyarrow.parquet as pq

    _write_atomic(path, lambda f: pq.write_table(table, f, compression="zstd", compression_level=19))


def read_sealed(path: Path) -> list[dict[str, str]]:
    """A sealed run's rows as journal cells (the exact text the journal held)."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    names = table.column_names
    columns = {c: table.column(c).to_pylist() for c in names}
    return [{c: _text(c, columns[c][i]) if c in columns else "" for c in COLUMNS} for i in range(table.num_rows)]


# --- the journal ----------------------------------------------------------------------------------------


def _repair_tail(path: Path) -> None:
    """Cut a last line that lacks its newline (a write interrupted mid-line)."""
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def read_journal(path: Path) -> list[dict[str, str]]:
    """The complete rows of one journal (a cut-short last line is ignored)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text)))


@dataclass
class EvidenceWriter:
    """Appends rows of one run to its journal ``<dir>/<run>.csv``, keeps ``<run>.env.json`` beside
    it, and seals the run into ``<dir>/<run>.parquet`` when closed (see the module's notes)."""

    directory: Path
    run_id: str
    env: dict[str, Any] = field(default_factory=dict)
    _keys: set[tuple[str, ...]] = field(default_factory=set, init=False)
    _fd: int | None = field(default=None, init=False)
    rows_written: int = field(default=0, init=False)

    @property
    def csv_path(self) -> Path:
        return self.directory / f"{self.run_id}{JOURNAL}"

    @property
    def sealed_path(self) -> Path:
        return self.directory / f"{self.run_id}{SEALED}"

    @property
    def env_path(self) -> Path:
        return self.directory / f"{self.run_id}.env.json"

    def open(self) -> "EvidenceWriter":
        self.directory.mkdir(parents=True, exist_ok=True)
        for path in (self.sealed_path, self.env_path):  # a run killed while replacing either
            drop_leftover_temporaries(path)
        earlier = self.existing()
        if self.csv_path.exists():
            _repair_tail(self.csv_path)
        for r in earlier:
            self._keys.add(tuple(r.get(c, "") for c in KEY_COLUMNS))
        if earlier and self.env_path.exists() and not self.env:
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
        """Close the journal and seal the run."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            seal(self.csv_path)

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
        """Every row the run holds so far: sealed ones first, then the journal's."""
        sealed = read_sealed(self.sealed_path) if self.sealed_path.exists() else []
        return sealed + read_journal(self.csv_path)


def open_run(out_dir: Path, device_slug: str, run_id: str, env: dict[str, Any]) -> EvidenceWriter:
    return EvidenceWriter(Path(out_dir) / device_slug, run_id, env).open()


def find_run(out_dir: Path, run_id: str) -> Path | None:
    """The device folder holding ``run_id``, sealed or as a journal (for --resume), or None."""
    for suffix in (SEALED, JOURNAL):
        for path in sorted(Path(out_dir).glob(f"*/{run_id}{suffix}")):
            return path.parent
    return None


def seal(journal: Path) -> Path:
    """Seal the run whose journal is ``journal``: its rows, after those already sealed for the same
    run, into ``<run>.parquet`` (atomic), then the journal removed. Returns the sealed path."""
    sealed = journal.with_suffix(SEALED)
    drop_leftover_temporaries(sealed)  # a seal killed half-way: its rows are still in the journal
    rows = (read_sealed(sealed) if sealed.exists() else []) + read_journal(journal)
    seen: set[tuple[str, ...]] = set()
    unique = []
    for r in rows:  # a row written twice (a resume after a crash between seal and unlink) counts once
        key = tuple(r.get(c, "") for c in KEY_COLUMNS)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    write_sealed(sealed, unique)
    journal.unlink(missing_ok=True)
    return sealed


# --- finding runs ---------------------------------------------------------------------------------------


def run_files(root: Path, *, experiments: bool = True) -> Iterator[Path]:
    """Every sealed run under ``root/evidence``: ``<device>/<run>.parquet`` and, with
    ``experiments``, ``<device>/experiments/<run>.parquet``."""
    base = Path(root) / "evidence"
    if base.is_dir():
        yield from sorted(base.glob(f"*/*{SEALED}"))
        if experiments:
            yield from sorted(base.glob(f"*/{EXPERIMENTS}/*{SEALED}"))


def journals(root: Path) -> Iterator[Path]:
    """Journals under ``root/evidence`` that were never sealed (a killed run)."""
    base = Path(root) / "evidence"
    if base.is_dir():
        yield from sorted(base.glob(f"*/*{JOURNAL}"))
        yield from sorted(base.glob(f"*/{EXPERIMENTS}/*{JOURNAL}"))


def device_of(path: Path) -> str:
    """The device slug of a run file: its folder, or the folder above experiments/."""
    return path.parent.parent.name if path.parent.name == EXPERIMENTS else path.parent.name


