"""Every kernel entry file (a .cu under kernels/, outside kernels/include/) belongs to a record, so no
kernel goes unverified and unlisted."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Location, Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "kernel-has-record"


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
