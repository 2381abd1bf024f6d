"""Every target a realization builds for has a profile (catalog/targets/<target>.yaml) with every
feature the realization ``requires``; a realization that names only features matches at least one
profile. A target profile is what the launch limits, the lint and the kernels' EPL_HAS_* macros
read, so a target without one would be built against guessed limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem, json_path

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "target-profiles"


def check(catalog: "Catalog") -> Iterator[Problem]:
    known = ", ".join(catalog.targets) or "none"
    for r in catalog.realizations.values():
        written = "targets" in r.data
        if not written:
            if not r.targets:
                yield Problem(r.loc("requires"), f"no target profile has all of {', '.join(r.requires)} (profiles: {known}); add a "
                              "profile under catalog/targets/ or name the targets", RULE, "$.requires")
            continue
        for i, t in enumerate(r.targets):
            where = r.loc("targets", i)
            profile = catalog.targets.get(t)
            if profile is None:
                yield Problem(where, f"target '{t}' has no profile: add catalog/targets/{t}.yaml (known: {known})",
                              RULE, json_path(("targets", i)))
                continue
            missing = [f for f in r.requires if f not in profile.features]
            if missing:
                yield Problem(where, f"target '{t}' lacks {', '.join(missing)}, which the record requires: drop the "
                              f"target or the requirement", RULE, json_path(("targets", i)))
