"""Every declared parameter is used: named by an entry expression's ``{placeholder}``, by a launch
expression (``block``, or ``dtype_bytes`` for ``dtype``; a domain bound counts: it decides which
shapes each value serves), or required by the measurement contract.
A parameter nothing reads still multiplies the points: each of its values is one more build, one
more verification and one more timing of the very same machine code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.contracts import get_contract
from epldb.cxx import placeholders
from epldb.launch.domain import domain_of
from epldb.launch.expr import Expr, parse
from epldb.launch.plan import expression_fields
from epldb.problems import Problem
from epldb.records import Realization

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "params-used"


def _used(catalog: "Catalog", r: Realization) -> set[str]:
    used = {name for e in r.kernel.entries for name in placeholders(e.expression)}
    bounds = [b for spec in domain_of(r).values() if isinstance(spec, dict) for b in spec.values()]
    for source in [*expression_fields(r), *bounds]:
        expr = parse(source)
        if isinstance(expr, Expr):
            for name, _ in expr.names():
                used |= {name, name.removesuffix("_bytes")}  # 'dtype_bytes' reads dtype
    contract = get_contract(catalog.contract_name_of(r))
    if contract is not None:
        used |= set(contract.required_params)
    return used


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        if catalog.subject_of(r) is None:
            continue  # its contract, which may read parameters, is unknown: the missing subject is the message
        if any(n not in r.params for e in r.kernel.entries for n in placeholders(e.expression)):
            continue  # an undeclared placeholder is most often a renamed parameter: placeholders-declared says so
        used = _used(catalog, r)
        for name, values in r.params.items():
            if name not in used:
                points = len(r.points())
                yield Problem(r.source.key_at(("params", name)),
                              f"parameter '{name}' ({len(values)} value(s)) is declared but no entry expression, "
                              f"launch expression or contract uses it, so it only multiplies the {points} points "
                              f"by repeating the same build; use it as '{{{name}}}' in an entry or remove it",
                              RULE, f"$.params.{name}")
