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
from collections.abc import Iterable
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


class _Scan:
    """File contents, hashes and include lists read once, shared by every kernel hashed in one call
    (the kernels of a catalog include mostly the same headers)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[Path, tuple[str | None, list[tuple[str, str]]]] = {}
        self.found: dict[tuple[Path, str, str, Path], Path | None] = {}
        self.rels: dict[Path, str | None] = {}
        self.candidates: dict[Path, bool] = {}

    def rel(self, path: Path) -> str | None:
        if path not in self.rels:
            self.rels[path] = _rel(self.root, path)
        return self.rels[path]

    def read(self, path: Path) -> tuple[str | None, list[tuple[str, str]]]:
        if path not in self.files:
            try:
                data = path.read_bytes()
            except OSError:
                self.files[path] = (None, [])
            else:
                text = data.decode("utf-8", errors="replace")
                self.files[path] = (hashlib.sha256(data).hexdigest(),
                                    [(m.group(1), m.group(2).strip()) for m in _INCLUDE.finditer(text)])
        return self.files[path]

    def resolve(self, including: Path, kind: str, name: str, kernel_dir: Path) -> Path | None:
        """As ``_resolve``, each candidate file looked up once."""
        key = (including.parent if kind == '"' else kernel_dir, kind, name, kernel_dir)
        if key not in self.found:
            search = ([including.parent] if kind == '"' else []) + [self.root / "kernels" / "include", kernel_dir]
            self.found[key] = next((c for d in search if self._inside(c := d / name)), None)
        return self.found[key]

    def _inside(self, candidate: Path) -> bool:
        if candidate not in self.candidates:
            self.candidates[candidate] = candidate.is_file() and self.rel(candidate) is not None
        return self.candidates[candidate]


def source_files(root: Path, kernel_rel: str, scan: _Scan | None = None) -> list[SourceFile]:
    """The kernel (``kernel_rel`` is relative to kernels/) and its repository includes, sorted by path."""
    root = Path(root)
    scan = scan or _Scan(root)
    kernel = root / "kernels" / kernel_rel
    seen: dict[str, SourceFile] = {}
    todo = [kernel]
    while todo:
        path = todo.pop()
        rel = scan.rel(path) or PurePosixPath("kernels", kernel_rel).as_posix()
        if rel in seen:
            continue
        digest, includes = scan.read(path)
        seen[rel] = SourceFile(rel, digest)
        for kind, name in includes:
            found = scan.resolve(path, kind, name, kernel.parent)
            if found is not None:
                todo.append(found)
    return sorted(seen.values(), key=lambda f: f.path)


def source_hash(root: Path, kernel_rel: str, scan: _Scan | None = None) -> str:
    """sha256 (hex) over the kernel and its transitive repository includes: paths and contents.

    A missing kernel hashes as its path alone, so the value is still defined (and differs from any
    existing version); the compile reports the missing file as a problem.
    """
    h = hashlib.sha256(HASH_VERSION.encode())
    for f in source_files(root, kernel_rel, scan):
        h.update(b"\0" + f.path.encode() + b"\0" + (f.sha256 or "missing").encode())
    return h.hexdigest()


def source_hashes(root: Path, kernels: Iterable[str]) -> dict[str, str]:
    """``source_hash`` of each kernel, every file read and hashed once for all of them."""
    scan = _Scan(Path(root))
    return {k: source_hash(root, k, scan) for k in dict.fromkeys(kernels)}
