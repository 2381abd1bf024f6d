"""Every launch plan parses, names only parameters, contract shape variables, scratch buffers and
contract arrays, and resolves at every point and verification shape within the launch limits of
every target it builds for (the tightest of their profiles)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.contracts import get_contract
from epldb.launch.plan import RULE, LaunchLimits, check_plan
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

__all__ = ["RULE", "check"]


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        limits = LaunchLimits.tightest([catalog.targets[t] for t in r.targets if t in catalog.targets])
        yield from check_plan(r, get_contract(catalog.contract_name_of(r)), limits)
