"""A ``verified`` realization has fresh passing GPU evidence (error at its status line otherwise);
every ``draft`` one is reported as a notice, with what evidence it has."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from epldb.evidence import RULE, evidence_problems
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

__all__ = ["RULE", "check"]



def check(catalog: "Catalog") -> Iterable[Problem]:
    return evidence_problems(catalog)
