"""Every reference resolves: features and operators named by primitives, features and primitives named
by operators, the primitive or operator a realization realizes, the building blocks (realization
or primitive ids) an operator realization ``composes``, and the realizations, primitives and operators
an experiment ``concerns``; and no realization composes itself."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem, json_path
from epldb.records import Record

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "references-resolve"


def _missing(record: Record, path: tuple[str | int, ...], ref: str, kind: str, known: Iterable[str]) -> Problem:
    close = difflib.get_close_matches(ref, list(known), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f"; add catalog/{kind}s/... or fix the name"
    return Problem(record.loc(*path), f"no {kind} '{ref}' in the catalog{hint}", RULE, json_path(path))


def check(catalog: "Catalog") -> Iterator[Problem]:
    # A reference to a record that exists but failed its schema is not a second problem.
    features = set(catalog.features) | catalog.invalid_ids("feature")
    primitives = set(catalog.primitives) | catalog.invalid_ids("primitive")
    operators = set(catalog.operators) | catalog.invalid_ids("operator")
    for p in catalog.primitives.values():
        for i, f in enumerate(p.features):
            if f not in features:
                yield _missing(p, ("features", i), f, "feature", catalog.features)
        for i, o in enumerate(p.operators):
            if o not in operators:
                yield _missing(p, ("operators", i), o, "operator", catalog.operators)
    for o in catalog.operators.values():
        for i, f in enumerate(o.features):
            if f.feature not in features:
                yield _missing(o, ("features", i, "feature"), f.feature, "feature", catalog.features)
        for i, s in enumerate(o.decomposition):
            if s.primitive not in primitives:
                yield _missing(o, ("decomposition", i, "primitive"), s.primitive, "primitive", catalog.primitives)
    realizations = set(catalog.realizations) | catalog.invalid_ids("realization")
    for r in catalog.realizations.values():
        # A lone subject that is not the record's folder is path-matches-id's to report: one message.
        folder = r.id.split("/", 1)[0]
        lone = (r.primitive is None) != (r.operator is None)
        if r.primitive is not None and r.primitive not in primitives and not (lone and r.primitive != folder):
            yield _missing(r, ("primitive",), r.primitive, "primitive", catalog.primitives)
        if r.operator is not None and r.operator not in operators and not (lone and r.operator != folder):
            yield _missing(r, ("operator",), r.operator, "operator", catalog.operators)
        for i, block in enumerate(r.composes):
            if block == r.id:
                yield Problem(r.loc("composes", i), f"'{block}' composes itself: composes lists the other "
                              "realizations or primitives it is built from; remove it", RULE,
                              json_path(("composes", i)))
            elif "/" in block and block not in realizations:
                yield _missing(r, ("composes", i), block, "realization", catalog.realizations)
            elif "/" not in block and block not in primitives:
                yield _missing(r, ("composes", i), block, "primitive", catalog.primitives)
    for e in catalog.experiments.values():
        for i, ref in enumerate(e.concerns):
            if "/" in ref:
                if ref not in realizations:
                    yield _missing(e, ("concerns", i), ref, "realization", catalog.realizations)
            elif ref not in primitives and ref not in operators:
                known = [*catalog.primitives, *catalog.operators]
                close = difflib.get_close_matches(ref, known, n=1)
                hint = (f"; did you mean '{close[0]}'?" if close else
                        "; an experiment concerns realizations, primitives and operators: fix the id")
                yield Problem(e.loc("concerns", i), f"no primitive or operator '{ref}' in the catalog{hint}", RULE,
                              json_path(("concerns", i)))
