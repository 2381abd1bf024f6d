"""Evidence: measured rows with their provenance, append-only, one sealed Parquet file a run.

- :mod:`epldb.evidence.row`: the row type and the columns derived from it;
- :mod:`epldb.evidence.store`: the journal a run appends to, the sealed Parquet file, finding runs;
- :mod:`epldb.evidence.environment`: a run's environment record (GPU, board, versions, commit);
- :mod:`epldb.evidence.table`: every run as one tidy pandas table (``cat.evidence()``);
- :mod:`epldb.evidence.freshness`: which rows still describe today's kernels; the evidence-fresh rule;
- :mod:`epldb.evidence.provenance`: every run has its environment and a commit of the history.

Importing this package imports neither pandas nor pyarrow; the functions that need them do.
"""

from __future__ import annotations

from collections.abc import Iterable

from epldb.evidence.environment import collect_environment, git_commit, new_run_id, source_tree_sha256
from epldb.evidence.freshness import current_hashes, stale_mask
from epldb.evidence.status import RULE, evidence_problems
from epldb.evidence.row import BOOLEAN, COLUMNS, KEY_COLUMNS, KINDS, NUMERIC, STATUSES, Row, canonical_json, csv_line
from epldb.evidence.store import (
    EvidenceWriter,
    find_run,
    journals,
    open_run,
    read_journal,
    read_sealed,
    run_files,
    seal,
    write_json_atomic,
    write_sealed,
)
from epldb.evidence.table import load_evidence, newest_fresh

__all__ = [
    "BOOLEAN", "COLUMNS", "KEY_COLUMNS", "KINDS", "NUMERIC", "RULE", "STATUSES", "EvidenceWriter", "Row",
    "canonical_json", "collect_environment", "csv_line", "current_hashes", "evidence_problems", "find_run",
    "git_commit", "journals", "load_evidence", "new_run_id", "newest_fresh", "open_run", "read_journal",
    "read_sealed", "run_files", "seal", "source_tree_sha256", "stale_mask", "summarize", "write_json_atomic",
    "write_sealed",
]


def summarize(rows: Iterable[Row]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    return counts
