"""Every sealed run has its environment file and a commit of the history (a full sha, or a base
commit with the hash of the uncommitted tree measured); the holes of runs sealed before this was
checked are listed in evidence/provenance-holes.yaml and reported as notices. A run journal left
unsealed (a killed run's ``<run>.csv``) is an error: seal it with ``epldb evidence seal``. A run whose
environment names another board than its device folder's (an H100 run among H200 runs), or a
compute capability the catalog's target profiles do not give its GPU, is an error too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.evidence.environment import known_devices
from epldb.evidence.provenance import RULE, provenance_problems
from epldb.evidence.store import journals
from epldb.problems import Location, Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

__all__ = ["RULE", "check"]


def check(catalog: "Catalog") -> Iterator[Problem]:
    root = catalog.root
    for journal in journals(root):
        yield Problem(Location(journal.relative_to(root).as_posix()), "a run journal that was never sealed (the run "
                      "was killed, or the files came back from a GPU machine as journals); run 'epldb evidence seal' "
                      "to seal it into <run>.parquet", RULE)
    yield from provenance_problems(root, known_devices(catalog.targets.values()))
