"""A realization's kernel path stays inside kernels/: relative, no '..', no link that leads out, and
the file exists."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "kernel-path-inside"
_PATH = "$.kernel.source"


def resolve_kernel(kernels_dir: Path, source: str) -> tuple[Path | None, str | None]:
    """The kernel file for a record's ``kernel.source``, or why it is refused."""
    pure = PurePosixPath(source)
    if pure.is_absolute() or source.startswith("~") or (len(source) > 1 and source[1] == ":"):
        return None, f"kernel path '{source}' is absolute; write it relative to kernels/"
    if ".." in pure.parts:
        return None, f"kernel path '{source}' contains '..'; write it relative to kernels/ without leaving it"
    if "\\" in source:
        return None, f"kernel path '{source}' uses backslashes; use '/'"
    candidate = kernels_dir / pure
    base = kernels_dir.resolve()
    resolved = candidate.resolve()
    if resolved != base and base not in resolved.parents:
        return None, f"kernel path '{source}' leads outside kernels/ through a link; keep the kernel inside kernels/"
    if not candidate.is_file():
        return None, f"kernel file kernels/{source} does not exist; add it or fix the path"
    return candidate, None


def meant_kernel(catalog: "Catalog", record_path: str) -> str | None:
    """The kernel a realization record whose kernel path is refused most likely meant: the one at
    the place ``epldb new realization`` puts it (``kernels/<folder>/<subject>/<name>.cu``), when
    it exists. kernel-has-record leaves that kernel to this rule, so that one wrong path is one
    message, not a second about the kernel it leaves without a record."""
    parts = PurePosixPath(record_path).parts  # catalog/realizations/<subject>/<name>.yaml
    if len(parts) != 4 or not catalog.kernels_dir.is_dir():
        return None
    subject, name = parts[2], parts[3][: -len(".yaml")]
    for room in sorted(p for p in catalog.kernels_dir.iterdir() if p.is_dir() and p.name != "include"):
        candidate = room / subject / f"{name}.cu"
        if candidate.is_file():
            return candidate.relative_to(catalog.kernels_dir).as_posix()
    return None


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        _, why = resolve_kernel(catalog.kernels_dir, r.kernel.source)
        if why:
            meant = meant_kernel(catalog, r.file)
            if meant is not None and meant != r.kernel.source:
                why += f" (kernels/{meant} is where its kernel would be: `source: {meant}`?)"
            yield Problem(r.loc("kernel", "source"), why, RULE, _PATH)
