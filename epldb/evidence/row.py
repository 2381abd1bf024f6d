"""One evidence row: what it measured (its key) and what came back, as a typed record and as the
cells a journal line holds.

The columns are declared once, by the fields of :class:`Row` (``run`` first, which the run's file
supplies); the journal's CSV header, the sealed Parquet schema and the loaded table all derive
from them.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

KINDS = ("realization", "peer", "ceiling", "sanitizer")
STATUSES = ("passed", "incorrect", "compile-error", "runtime-error", "skipped")
#: The columns that identify what a row measured; a run holds at most one row per key.
KEY_COLUMNS = ("subject", "kind", "params", "dtype", "shape")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class Row:
    """One measurement: a realization at a point and shape, a peer, a ceiling, or a realization
    under a sanitizer tool (epldb/sanitize.py)."""

    subject: str
    kind: str  # realization | peer | ceiling | sanitizer
    params: dict[str, Any]  # stored as JSON, sorted keys
    dtype: str
    shape: dict[str, Any]  # stored as JSON, sorted keys
    status: str  # passed | incorrect | compile-error | runtime-error | skipped
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


COLUMNS: tuple[str, ...] = ("run", *(f.name for f in fields(Row)))
#: Columns holding a number (empty cell: none); ``deterministic`` holds a boolean.
NUMERIC: tuple[str, ...] = tuple(f.name for f in fields(Row) if f.type == "float | None")
BOOLEAN: tuple[str, ...] = tuple(f.name for f in fields(Row) if f.type == "bool | None")
TEXT: tuple[str, ...] = tuple(c for c in COLUMNS if c not in NUMERIC and c not in BOOLEAN)


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


def params_dict(params: object) -> dict[str, Any]:
    """A row's parameters (its JSON text, or a dict already) as a dict; {} for anything else."""
    if isinstance(params, dict):
        return params
    if isinstance(params, str) and params.strip():
        try:
            loaded = json.loads(params)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}
