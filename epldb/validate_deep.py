"""Checks ``epldb validate`` runs beyond schema and lint: every realization compiled for every declared
target with its machine-code claims checked."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from epldb.catalog import Catalog
from epldb.problems import Problem
from epldb.records import Realization


def compile_all(root: Path, jobs: Iterable[tuple[Realization, str]],
                where: Mapping[str, Sequence[str]] | None = None) -> list:  # type: ignore[type-arg]
    """Builds of (realization, target) pairs, in order; ``where`` keeps the parameter points whose
    values (as strings) it accepts. NVRTC releases the GIL while it compiles, so threads overlap
    the builds (a cold catalog compiles about twice as fast on two cores)."""
    from epldb.compile import compile_realization

    work = list(jobs)
    with ThreadPoolExecutor(max_workers=max(1, min(len(work), os.cpu_count() or 1))) as pool:
        return list(pool.map(lambda job: compile_realization(root, job[0], job[1], job[0].points_where(where)), work))


def deep_checks(catalog: Catalog) -> list[Problem]:
    if not catalog.ok:
        return []  # compiling records that failed validation would only repeat their errors
    jobs = [(r, t) for r in catalog.realizations.values() for t in r.targets]
    return [p for build in compile_all(catalog.root, jobs) for p in build.problems]
