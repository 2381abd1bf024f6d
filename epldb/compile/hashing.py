"""The content hash of a kernel: its source and every repository header it includes, transitively.

The hash keys the build cache and is stamped on every evidence row, so that a row measured on an
older version of the kernel (or of a header it includes) is recognised as stale. It therefore
depends only on file contents and repository-relative paths, never on absolute paths, mtimes or
the machine. System headers (CUDA, CCCL) are not hashed; their version is part of the build key.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

# `#include <epl/x.cuh>` or `#include "x.cuh"`; a line inside a block comment may match too, which
# only ever adds a file to the hash (harmless), never drops one.
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)

HASH_VERSION = "epl-source-v1"  # bump if what goes into the hash changes


@dataclass(frozen=True)
class SourceFile:
    path: str  # POSIX, relative to the repository root
    sha256: str | None  # None: the file does not exist


def _rel(root: Path, p: Path) -> str | None:
    try:
        return PurePosixPath(p.resolve().relative_to(root.resolve())).as_posix()
    except ValueError:
        return None  # outside the repository: not ours to hash


def _resolve(root: Path, including: Path, kind: str, name: str, kernel_dir: Path) -> Path | None:
    """Where the compiler would find an include among the repository's directories, or None.

    Mirrors the search order the compile uses: quotes look beside the including file first; then
    the -I directories kernels/include and the kernel's own directory.
    """
    include_dir = root / "kernels" / "include"
    search = ([including.parent] if kind == '"' else []) + [include_dir, kernel_dir]
    for d in search:
        cand = d / name
        if cand.is_file() and _rel(root, cand) is not None:
            return cand
    return None


def source_files(root: Path, kernel_rel: str) -> list[SourceFile]:
    """The kernel (``kernel_rel`` is relative to kernels/) and its repository includes, sorted by path."""
    root = Path(root)
    kernel = root / "kernels" / kernel_rel
    seen: dict[str, SourceFile] = {}
    todo = [kernel]
    while todo:
        path = todo.pop()
        rel = _rel(root, path) or PurePosixPath("kernels", kernel_rel).as_posix()
        if rel in seen:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            seen[rel] = SourceFile(rel, None)
            continue
        seen[rel] = SourceFile(rel, hashlib.sha256(data).hexdigest())
        text = data.decode("utf-8", errors="replace")
        for m in _INCLUDE.finditer(text):
            found = _resolve(root, path, m.group(1), m.group(2).strip(), kernel.parent)
            if found is not None:
                todo.append(found)
    return sorted(seen.values(), key=lambda f: f.path)


def source_hash(root: Path, kernel_rel: str) -> str:
    """sha256 (hex) over the kernel and its transitive repository includes: paths and contents.

    A missing kernel hashes as its path alone, so the value is still defined (and differs from any
    existing version); the compile reports the missing file as a problem.
    """
    h = hashlib.sha256(HASH_VERSION.encode())
    for f in source_files(root, kernel_rel):
        h.update(b"\0" + f.path.encode() + b"\0" + (f.sha256 or "missing").encode())
    return h.hexdigest()
