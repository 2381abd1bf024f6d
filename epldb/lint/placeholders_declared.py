"""Every ``{param}`` placeholder of a name expression is a declared parameter, and entry names are unique."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.cxx import placeholders
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "placeholders-declared"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        seen: set[str] = set()
        for i, entry in enumerate(r.kernel.entries):
            if entry.name in seen:
                yield Problem(r.loc("kernel", "entries", i, "name"), f"entry name '{entry.name}' is used twice; "
                              "names must be unique within a realization", RULE, f"$.kernel.entries[{i}].name")
            seen.add(entry.name)
            for name in placeholders(entry.expression):
                if name not in r.params:
                    declared = ", ".join(r.params) or "none"
                    yield Problem(r.loc("kernel", "entries", i, "expression"),
                                  f"placeholder '{{{name}}}' is not a declared parameter (declared: {declared}); "
                                  "add it under params", RULE, f"$.kernel.entries[{i}].expression")
