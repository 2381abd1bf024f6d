"""An operator's ``ladder`` lists realizations of that operator, each once: a rung that names
another subject's realization, or none, would draw a ladder whose steps compare different problems."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "ladder-rungs"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for o in catalog.operators.values():
        own = [r.id for r in catalog.realizations_of(o.id)]
        for i, rung in enumerate(o.ladder):
            if rung in own:
                continue
            r = catalog.realizations.get(rung)
            if r is not None:
                why = f"it realizes '{r.subject}', not this operator"
            else:
                close = difflib.get_close_matches(rung, own, n=1)
                why = f"no such realization; did you mean '{close[0]}'?" if close else "no such realization"
            yield Problem(o.loc("ladder", i), f"ladder rung '{rung}': {why}", RULE, f"$.ladder[{i}]")
