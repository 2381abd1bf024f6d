"""Kernels include only files of the repository: no ``#include`` by absolute path, none whose
relative path climbs out of kernels/. A build reads whatever such a path names on the machine
that compiles it (another checkout's header, a system file): the source hash, the evidence's
freshness and other machines' builds would all miss it. Checked before anything is compiled."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from epldb.problems import Location, Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "kernel-includes-inside"
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)


def _outside(kernels: Path, file: Path, included: str) -> str | None:
    """Why ``included`` (as written in ``file``) leads out of kernels/, or None."""
    pure = PurePosixPath(included)
    if pure.is_absolute() or included.startswith("~") or (len(included) > 1 and included[1] == ":"):
        return "is an absolute path"
    if ".." not in pure.parts:
        return None
    base = kernels.resolve()
    # Relative includes resolve beside the including file first, then under kernels/include/.
    for start in (file.parent, kernels / "include"):
        resolved = (start / pure).resolve()
        if resolved == base or base in resolved.parents:
            return None
    return "climbs out of kernels/"


def check(catalog: "Catalog") -> Iterator[Problem]:
    kernels = catalog.kernels_dir
    if not kernels.is_dir():
        return
    for path in sorted([*kernels.rglob("*.cu"), *kernels.rglob("*.cuh")]):
        text = path.read_text(encoding="utf-8", errors="replace")
        where = path.relative_to(catalog.root).as_posix()
        for m in _INCLUDE.finditer(text):
            why = _outside(kernels, path, m.group(1))
            if why:
                line = text.count("\n", 0, m.start()) + 1
                col = m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1)
                yield Problem(Location(where, line, col),
                              f"#include \"{m.group(1)}\" {why}: a kernel includes only files under kernels/ (the "
                              "basis is kernels/include/epl/); copy what it needs there or include it from "
                              "the basis", RULE)
