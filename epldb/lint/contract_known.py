"""A primitive's ``contract`` names a measurement contract that exists in ``epldb.contracts``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.contracts import REGISTRY, contract_names
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "contract-known"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for p in catalog.primitives.values():
        if p.contract is not None and p.contract not in REGISTRY:
            known = ", ".join(contract_names()) or "none"
            yield Problem(p.loc("contract"), f"no measurement contract '{p.contract}' in epldb.contracts "
                          f"(known: {known}); write one there or remove the field", RULE, "$.contract")
