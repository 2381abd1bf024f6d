"""A primitive's or operator's ``contract`` names a measurement contract that exists in ``epldb.contracts``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import difflib

from epldb.contracts import REGISTRY
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "contract-known"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for p in (*catalog.primitives.values(), *catalog.operators.values()):
        if p.contract is not None and p.contract not in REGISTRY:
            close = difflib.get_close_matches(p.contract, list(REGISTRY), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "write one there or remove the field"
            yield Problem(p.loc("contract"), f"no measurement contract '{p.contract}' in epldb.contracts; {hint}",
                          RULE, "$.contract")
