"""Every kernel entry file (a .cu under kernels/, outside kernels/include/) belongs to a record, so no
kernel goes unverified and unlisted."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from epldb.catalog import MAX_RECORD_BYTES
from epldb.lint.kernel_path_inside import meant_kernel, resolve_kernel
from epldb.problems import Location, Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "kernel-has-record"


_SOURCE = re.compile(r"^\s*source:\s*[\"']?([^\"'\s#]+)", re.M)


def _sources_in_text(path: Path) -> set[str]:
    """The ``source:`` values a record's raw text names, read without parsing it."""
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            return set()
        return set(_SOURCE.findall(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return set()


def check(catalog: "Catalog") -> Iterator[Problem]:
    kernels = catalog.kernels_dir
    if not kernels.is_dir():
        return
    # Records that failed their schema, or whose path kernel-path-inside refused ('../kernels/x.cu'),
    # still claim their kernel: one problem per mistake, not two.
    sources = {
        rf.data["kernel"]["source"]
        for rf in catalog.files
        if rf.kind == "realization" and isinstance(rf.data, dict)
        and isinstance(rf.data.get("kernel"), dict) and isinstance(rf.data["kernel"].get("source"), str)
    }
    # A record whose path kernel-path-inside refuses (absolute, missing) most likely meant the
    # kernel at its conventional place; that rule names it. A record the loader could not parse
    # (a YAML error) claims the kernel its text names, or the one at that place: its YAML error
    # is the one message.
    # Likewise a record that failed its schema (its kernel field a list, its source missing).
    unparsed = [rf for rf in catalog.files if rf.kind == "realization" and not rf.valid]
    sources |= {s for rf in unparsed if not isinstance(rf.data, dict) for s in _sources_in_text(catalog.root / rf.path)}
    refused = [r.file for r in catalog.realizations.values()
               if resolve_kernel(catalog.kernels_dir, r.kernel.source)[1] is not None]
    sources |= {m for f in [*refused, *(rf.path for rf in unparsed)] if (m := meant_kernel(catalog, f))}
    claimed = {posixpath.normpath(posixpath.join("kernels", s)) for s in sources}
    for path in sorted(kernels.rglob("*.cu")):
        rel = path.relative_to(kernels).as_posix()
        if rel.startswith("include/"):
            continue
        if f"kernels/{rel}" not in claimed:
            subject = "<operator>" if rel.startswith("operators/") else "<primitive>"
            yield Problem(Location(path.relative_to(catalog.root).as_posix()),
                          f"kernel file has no realization record; add catalog/realizations/{subject}/<name>.yaml "
                          f"with kernel.source: {rel}", RULE)
