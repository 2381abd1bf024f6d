"""No primitive and operator share an id: both name folders under catalog/realizations/ (and
kernels/), so a shared id would make a realization's subject ambiguous."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "subject-ids-distinct"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for oid, o in catalog.operators.items():
        p = catalog.primitives.get(oid)
        if p is not None:
            yield Problem(o.loc("id"), f"operator id '{oid}' is also the id of primitive {p.file}; primitive and "
                          "operator ids name realization folders, so they must differ: rename one", RULE, "$.id")
