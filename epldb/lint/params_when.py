"""A realization's ``params_when`` keeps a real space: the expression parses, names only integer
parameters, evaluates at every point of the cross product, keeps at least one point, and leaves
every value of every parameter in some point (a value no point keeps is a declaration that builds,
verifies and times nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.launch.expr import ExprError, evaluate, parse
from epldb.problems import Problem
from epldb.records import Realization, param_text, point_text

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "params-when"
PATH = "$.params_when"


def _problems(r: Realization) -> Iterator[str]:
    text = r.params_when
    if text is None:
        return
    expr = parse(text)
    if isinstance(expr, ExprError):
        yield f"params_when {text!r}, column {expr.col}: {expr.message}"
        return
    numbers = {name for name, values in r.params.items()
               if all(isinstance(v, int) and not isinstance(v, bool) for v in values)}
    unknown = [(name, col) for name, col in expr.names() if name not in numbers]
    for name, col in unknown:
        yield (f"params_when {text!r}, column {col}: '{name}' is not an integer parameter "
               f"(integer parameters: {', '.join(sorted(numbers)) or 'none'})")
    if unknown:
        return
    kept = []
    for point in r.points_crossed():
        value = evaluate(expr, point)
        if isinstance(value, ExprError):
            yield f"params_when {text!r} at {point_text(point)}, column {value.col}: {value.message}"
            return
        if value != 0:
            kept.append(point)
    if not kept:
        yield f"params_when {text!r} is 0 at every point: the realization has no point to build"
        return
    for name, values in r.params.items():
        lost = [param_text(v) for v in values if all(p[name] != v for p in kept)]
        if lost:
            yield (f"params_when {text!r} keeps no point with {name} = {', '.join(lost)}: drop the value(s) "
                   f"from params.{name} or widen the expression")


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        for message in _problems(r):
            yield Problem(r.source.key_at(("params_when",)), message, RULE, PATH)
