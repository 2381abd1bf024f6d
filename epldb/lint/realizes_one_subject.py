"""A realization names exactly one subject: ``primitive`` (a realization of an execution primitive)
or ``operator`` (a whole operator composed from building blocks), never both, never neither. The
schema leaves both optional so that this rule can say so in one plain, located sentence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "realizes-one-subject"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        folder = r.id.split("/", 1)[0]
        if r.primitive is not None and r.operator is not None:
            yield Problem(r.source.key_at(("operator",)),
                          f"a realization realizes one subject, but this names both primitive '{r.primitive}' "
                          f"and operator '{r.operator}'; keep the one that is the folder '{folder}'", RULE,
                          "$.operator")
        elif r.primitive is None and r.operator is None:
            yield Problem(r.loc("id"), "a realization names what it realizes, but this has neither `primitive` "
                          f"nor `operator`; add `primitive: {folder}` or `operator: {folder}`", RULE, "$")
