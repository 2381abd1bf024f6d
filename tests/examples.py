"""Example catalogs for the loader's acceptance tests, collected from folders.

``tests/examples/base/`` is a small valid repository root. Each case under ``positive/`` or
``negative/`` is an overlay on it: files to add or replace, plus optionally
``remove.txt`` (paths to delete, one a line) and ``links.txt`` (``path -> target`` symbolic links to
make). A negative case holds ``expected.txt``: the exact problem lines, in order. A new case is a
new folder, not new code.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

EXAMPLES = Path(__file__).parent / "examples"
BASE = EXAMPLES / "base"
_CONTROL = {"expected.txt", "remove.txt", "links.txt", "README.md"}


def cases(kind: str) -> list[Path]:
    return sorted(p for p in (EXAMPLES / kind).iterdir() if p.is_dir()) if (EXAMPLES / kind).is_dir() else []


def materialize(case: Path, dest: Path) -> Path:
    """Build the case's repository root under ``dest`` and return it."""
    root = dest / case.name
    shutil.copytree(BASE, root)
    for path in sorted(case.rglob("*")):
        rel = path.relative_to(case)
        if path.is_dir() or rel.as_posix() in _CONTROL:
            continue
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    if (case / "remove.txt").exists():
        for line in (case / "remove.txt").read_text().split("\n"):
            if line.strip():
                (root / line.strip()).unlink()
    if (case / "links.txt").exists():
        for line in (case / "links.txt").read_text().split("\n"):
            if "->" in line:
                link, target = (s.strip() for s in line.split("->", 1))
                link_path = root / "kernels" / link
                link_path.unlink(missing_ok=True)
                os.symlink(target, link_path)
    return root
