"""Lint rules beyond the schema. Each rule is one module with ``RULE`` (its name, shown in brackets
after every message) and ``check(catalog) -> Iterable[Problem]``; ``RULES`` lists them in the order
they run. Rules see only schema-valid records."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from epldb.lint import (
    contract_known,
    entry_symbols,
    kernel_has_record,
    kernel_path_inside,
    launch_plan,
    operator_primitive_symmetry,
    path_matches_id,
    placeholders_declared,
    realizes_one_subject,
    references_resolve,
    subject_ids_distinct,
)
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog


@dataclass(frozen=True)
class Rule:
    name: str
    check: Callable[["Catalog"], Iterable[Problem]]
    doc: str


def _rule(module: object) -> Rule:
    return Rule(module.RULE, module.check, (module.__doc__ or "").strip())  # type: ignore[attr-defined]


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
        entry_symbols,
        placeholders_declared,
        contract_known,
        launch_plan,
    )
)

def evidence_rules() -> tuple[Rule, ...]:
    """Rules that read evidence/ (pandas, content hashes): ``epldb validate`` runs them, a plain
    ``load()`` does not, so loading stays fast and free of pandas."""
    from epldb.lint import evidence_fresh

    return (_rule(evidence_fresh),)


def run_rules(catalog: "Catalog") -> list[Problem]:
    problems: list[Problem] = []
    for rule in RULES:
        problems.extend(rule.check(catalog))
    return problems
