"""Launch-plan domains: the shapes a realization applies to.

A realization that holds a row in registers serves rows up to its capacity and no longer; one built
for long rows wastes the machine on short ones. Its plan says so in ``launch.domain``::

    domain:
      cols:
        max: "group * vecs * (16 // dtype_bytes)"
        min: "group * vecs * (16 // dtype_bytes) // 4 + 1"

Each key is a shape variable of the contract; ``min`` and ``max`` (both optional, inclusive) and
``multiple`` (the served values are its multiples: a tensor map's rows are whole 16-byte units) are
expressions of the launch-plan language over the parameters and shape variables. A (shape, point)
pair outside the domain is not run: verification and timing skip it, and ``epldb.run`` refuses it
with the bounds in the message. Lint checks that the expressions parse and name known values, and
that at least one verification shape falls inside some point's domain (a long-row realization
never sees short rows, but one that sees no shape at all could never be verified).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from epldb.launch.env import plan_env
from epldb.launch.expr import ExprError, evaluate, parse
from epldb.problems import Problem, json_path
from epldb.records import Realization, point_text

if TYPE_CHECKING:
    from epldb.contracts.base import Contract

RULE = "launch-plan"
BOUNDS = ("min", "max")
KEYS = (*BOUNDS, "multiple")


def domain_of(realization: Realization) -> dict[str, dict[str, Any]]:
    """The plan's domain block: shape variable -> {"min": expr, "max": expr} (either optional)."""
    return dict((realization.launch or {}).get("domain") or {})


def bound_at(realization: Realization, var: str, key: str, env: Mapping[str, Any]) -> Any:
    """The ``key`` ("min", "max" or "multiple") bound of ``var`` evaluated at ``env``: an int, None where the
    domain sets none, or the ExprError of an expression that does not evaluate."""
    text = domain_of(realization).get(var, {}).get(key)
    if text is None:
        return None
    expr = parse(text)
    return evaluate(expr, env) if not isinstance(expr, ExprError) else expr


def outside_domain(realization: Realization, env: Mapping[str, Any]) -> str | None:
    """Why the shape and point in ``env`` (from plan_env) are outside the domain, or None if inside.

    An expression that does not evaluate is reported as outside (lint reports the expression)."""
    for var, bounds in domain_of(realization).items():
        value = env.get(var)
        if value is None:
            continue
        lo, hi = (bound_at(realization, var, key, env) for key in BOUNDS)
        for key, result in zip(BOUNDS, (lo, hi)):
            if isinstance(result, ExprError):
                return f"domain {var}.{key} {bounds[key]!r} does not evaluate: {result.message}"
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            span = f"[{'' if lo is None else lo}, {'' if hi is None else hi}]"
            return f"{var}={value} is outside this point's domain {var} in {span}"
        step = bound_at(realization, var, "multiple", env)
        if isinstance(step, ExprError):
            return f"domain {var}.multiple {bounds['multiple']!r} does not evaluate: {step.message}"
        if step is not None and (step < 1 or value % step):
            return f"{var}={value} is outside this point's domain: {var} must be a multiple of {step}"
    return None


def in_domain(realization: Realization, shape: Mapping[str, int], point: Mapping[str, Any]) -> bool:
    """The point serves the shape: inside every bound of launch.domain (or there is none)."""
    return outside_domain(realization, plan_env(shape, point)) is None


#: Fitting keeps a size's residue modulo this: its alignment against 16-byte vectors of 2-, 4- and
#: 8-byte elements (an odd column count stays odd and takes the scalar path, a multiple of 8 stays
#: aligned and ragged against the lanes).
FIT_RESIDUE = 8


def fit_into_domain(realization: Realization, shape: Mapping[str, int], point: Mapping[str, Any]) -> dict[str, int] | None:
    """``shape`` moved into the point's domain, variable by variable in the domain's order, to the
    nearest value with the same residue modulo FIT_RESIDUE (or the bound itself where the range
    is narrower); None if that still is not a shape the point serves."""
    fitted = dict(shape)
    for var in domain_of(realization):
        if var not in fitted:
            continue
        env = plan_env(fitted, point)
        lo, hi = (bound_at(realization, var, key, env) for key in BOUNDS)
        if isinstance(lo, ExprError) or isinstance(hi, ExprError):
            return None  # lint reports the expression
        step = bound_at(realization, var, "multiple", env)
        if isinstance(step, ExprError) or (step is not None and step < 1):
            return None
        value = fitted[var]
        if hi is not None and value > hi:
            value = hi - (hi - value) % FIT_RESIDUE
        if lo is not None and value < lo:
            value = lo + (value - lo) % FIT_RESIDUE
        if hi is not None and value > hi:  # the range is narrower than the residue's period
            value = hi
        if step is not None and value % step:  # the nearest multiple above (below where that passes hi)
            value = value + step - value % step
            if hi is not None and value > hi:
                value -= step
        fitted[var] = max(value, 1)
    return fitted if in_domain(realization, fitted, point) else None


def shapes_for_point(realization: Realization, point: Mapping[str, Any],
                     shapes: Sequence[Mapping[str, int]]) -> list[dict[str, int]]:
    """The shapes that verify ``point``: those of ``shapes`` inside its domain, or, where none is,
    each of them fitted into it (fit_into_domain). Contracts pick their verification sizes for what
    they exercise (odd, aligned, ragged, beyond L2); a point whose domain admits none of them (a
    32 x 8 register group serves 65-256 columns, a cluster of 4 x 512 threads 16385-65536) would
    otherwise be verified nowhere, however many of its neighbours pass."""
    served = [dict(s) for s in shapes if in_domain(realization, s, point)]
    if served:
        return served
    fitted: list[dict[str, int]] = []
    for s in shapes:
        f = fit_into_domain(realization, s, point)
        if f is not None and f not in fitted:
            fitted.append(f)
    return fitted


def check_domain(realization: Realization, contract: "Contract", numbers: set[str],
                 served: Sequence[tuple[Mapping[str, Any], list[dict[str, int]]]] | None = None) -> list[Problem]:
    """Static checks of ``launch.domain`` against the contract (for lint, inside check_plan).
    ``served``: each point with its shapes_for_point at the verification shapes, when the caller
    has them already."""
    problems: list[Problem] = []

    def add(path: tuple[str | int, ...], message: str) -> None:
        problems.append(Problem(realization.loc(*path), message, RULE, json_path(path)))  # type: ignore[arg-type]

    domain = domain_of(realization)
    if not domain:
        return problems
    ok = True
    for var, bounds in domain.items():
        base: tuple[str | int, ...] = ("launch", "domain", var)
        if var not in contract.shape_vars:
            add(base, f"domain names '{var}', which is not a shape variable of contract '{contract.name}' "
                      f"({', '.join(contract.shape_vars)})")
            ok = False
            continue
        for key in KEYS:
            if key not in bounds:
                continue
            expr = parse(bounds[key])
            if isinstance(expr, ExprError):
                add(base + (key,), f"domain {var}.{key} expression {bounds[key]!r}, column {expr.col}: {expr.message}")
                ok = False
                continue
            for name, col in expr.names():
                if name not in numbers:
                    add(base + (key,), f"domain {var}.{key} expression {bounds[key]!r}, column {col}: unknown name "
                                       f"'{name}' (known: {', '.join(sorted(numbers))})")
                    ok = False
    if not ok or not realization.params:
        return problems
    # Every point must have a shape to be verified at: one of the contract's, or one fitted into
    # its domain (shapes_for_point), as verify and measure choose them.
    if served is None:
        served = [(point, shapes_for_point(realization, point, contract.verify_shapes)) for point in realization.points()]
    unserved = [point for point, shapes in served if not shapes]
    if unserved:
        shown = "; ".join(point_text(point, sep=", ") for point in unserved[:3])
        more = f" and {len(unserved) - 3} more" if len(unserved) > 3 else ""
        add(("launch", "domain"), f"{len(unserved)} parameter point(s) serve no shape of contract "
            f"'{contract.name}', even fitted into their domain ({shown}{more}), so they can never be verified; "
            "widen the domain or drop those parameter values")
    return problems
