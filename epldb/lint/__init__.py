"""Lint rules beyond the schema. Each rule is one module with ``RULE`` (its name, shown in brackets
after every message) and ``check(catalog) -> Iterable[Problem]``; ``RULES`` lists them in the order
they run. Rules see only schema-valid records.

Most rules are cheap and run at every ``epldb.load()``. Those that resolve every launch plan at
every point and shape (thousands of evaluations) run only in ``epldb.validate()`` and the
``epldb validate`` command, so that loading stays well under a second."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from epldb.lint import (
    contract_known,
    entry_symbols,
    experiment_cited,
    experiment_evidence,
    experiment_numbered,
    include_layers,
    kernel_has_record,
    kernel_includes_inside,
    kernel_path_inside,
    ladder_rungs,
    launch_plan,
    operator_primitive_symmetry,
    params_used,
    params_when,
    path_matches_id,
    peers_measured,
    placeholders_declared,
    prose_length,
    realizes_one_subject,
    references_resolve,
    subject_ids_distinct,
    target_profiles,
)
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog


@dataclass(frozen=True)
class Rule:
    name: str
    check: Callable[["Catalog"], Iterable[Problem]]
    doc: str
    at_load: bool = True  # False: only epldb.validate() runs it (it costs more than a load)


def _rule(module: object, *, at_load: bool = True) -> Rule:
    return Rule(module.RULE, module.check, (module.__doc__ or "").strip(), at_load)  # type: ignore[attr-defined]


RULES: tuple[Rule, ...] = tuple(
    _rule(m)
    for m in (
        realizes_one_subject,
        subject_ids_distinct,
        path_matches_id,
        references_resolve,
        operator_primitive_symmetry,
        kernel_path_inside,
        kernel_has_record,
        kernel_includes_inside,
        target_profiles,
        include_layers,
        entry_symbols,
        placeholders_declared,
        params_used,
        params_when,
        contract_known,
        peers_measured,
        ladder_rungs,
        prose_length,
        experiment_numbered,
        experiment_cited,
        experiment_evidence,
    )
) + (_rule(launch_plan, at_load=False),)

def run_rules(catalog: "Catalog", *, deep: bool = False) -> list[Problem]:
    """The problems of the rules a load runs, or with ``deep`` only the rules it leaves out."""
    problems: list[Problem] = []
    for rule in RULES:
        if rule.at_load != deep:
            problems.extend(rule.check(catalog))
    return problems
