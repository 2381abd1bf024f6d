"""Checks ``epldb validate`` runs beyond schema and lint: every realization compiled for every declared
target with its machine-code claims checked, and evidence freshness. Each part is skipped, with a
notice, when its room is not installed."""

from __future__ import annotations

from epldb.catalog import Catalog
from epldb.problems import Problem


def deep_checks(catalog: Catalog) -> list[Problem]:
    problems: list[Problem] = []
    if not catalog.ok:
        return problems  # compiling records that failed validation would only repeat their errors
    try:
        from epldb.compile import compile_realization
    except ImportError:
        return problems
    for r in catalog.realizations.values():
        for target in r.targets:
            build = compile_realization(catalog.root, r, target)
            problems.extend(build.problems)
    return problems
