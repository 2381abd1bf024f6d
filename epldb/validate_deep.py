"""Checks ``epldb validate`` runs beyond schema and lint: every realization compiled for every declared
target with its machine-code claims checked."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from epldb.catalog import Catalog
from epldb.problems import Problem, merge_repeats
from epldb.records import Realization


def compile_all(root: Path, jobs: Iterable[tuple[Realization, str]],
                where: Mapping[str, Sequence[str]] | None = None, *, machine_code: bool = True,
                cover: bool = False) -> list:  # type: ignore[type-arg]
    """Builds of (realization, target) pairs, in order; ``where`` keeps the parameter points whose
    values (as strings) it accepts, ``cover`` only a sample of them holding every value of every
    parameter (Realization.points_covering); ``machine_code=False`` stops each at PTX. NVRTC releases
    the GIL while it compiles, so threads overlap the builds; the largest programs start first, so
    no core is left alone with one at the end."""
    from epldb.compile import compile_realization

    work = list(jobs)
    points = [r.points_covering(where) if cover else r.points_where(where) for r, _ in work]
    order = sorted(range(len(work)), key=lambda i: -len(points[i]) * len(work[i][0].kernel.entries))
    with ThreadPoolExecutor(max_workers=max(1, min(len(work), os.cpu_count() or 1))) as pool:
        futures = {i: pool.submit(compile_realization, root, work[i][0], work[i][1], points[i], machine_code=machine_code)
                   for i in order}
        return [futures[i].result() for i in range(len(work))]


def deep_checks(catalog: Catalog) -> list[Problem]:
    if not catalog.ok:
        return []  # compiling records that failed validation would only repeat their errors
    jobs = [(r, t) for r in catalog.realizations.values() for t in r.targets]
    return merge_repeats(p for build in compile_all(catalog.root, jobs) for p in build.problems)
