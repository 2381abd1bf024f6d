"""A primitive lists an operator exactly when that operator's decomposition uses the primitive, so the
two views of one fact cannot drift apart."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "operator-primitive-symmetry"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for o in catalog.operators.values():
        for i, stage in enumerate(o.decomposition):
            p = catalog.primitives.get(stage.primitive)
            # A primitive that lists an operator not in the catalog has references-resolve's message.
            if p is not None and o.id not in p.operators and all(x in catalog.operators for x in p.operators):
                yield Problem(o.loc("decomposition", i, "primitive"),
                              f"stage '{stage.name}' uses primitive '{p.id}', but {p.file} does not list "
                              f"'{o.id}' under operators; add it there", RULE, f"$.decomposition[{i}].primitive")
    for p in catalog.primitives.values():
        for i, oid in enumerate(p.operators):
            o = catalog.operators.get(oid)
            if o is not None and p.id not in o.primitives and all(x in catalog.primitives for x in o.primitives):
                yield Problem(p.loc("operators", i), f"operator '{oid}' is listed, but its decomposition in "
                              f"{o.file} has no stage using '{p.id}'; remove it or add the stage", RULE,
                              f"$.operators[{i}]")
