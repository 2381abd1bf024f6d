"""The catalog site: Markdown generated from the catalog, static builds and evidence, rendered by
MkDocs Material (``mkdocs build --strict``).

    from epldb.site import generate, build
    result = generate(root)            # writes site_src/generated/ (ignored by git)
    build(root, out=root / "site")     # mkdocs build --strict into site/

The generator uses no MkDocs plugin: its output is Markdown, raw HTML, fenced code, SVG and CSV
files and a nav YAML that the root ``mkdocs.yml`` inherits, so the engine can change later.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from epldb.catalog import Catalog
from epldb.lab import load
from epldb.site.data import EvidenceLoader, SiteData, gather
from epldb.site.pages import Output, generate_pages, record_pages

DOCS_DIR = "site_src"


@dataclass
class Generated:
    data: SiteData
    output: Output
    docs_dir: Path
    seconds: float

    @property
    def pages(self) -> list[str]:
        return sorted(self.output.pages)


def generate(root: Path | str | None = None, *, catalog: Catalog | None = None, compile: bool = True,
             evidence_loader: EvidenceLoader | None = None, progress=None) -> Generated:
    """Write ``<root>/site_src/generated/`` from the catalog under ``root``."""
    t0 = time.perf_counter()
    cat = catalog if catalog is not None else load(root)
    data = gather(cat, compile=compile, evidence_loader=evidence_loader, progress=progress)
    docs_dir = cat.root / DOCS_DIR
    output = generate_pages(data, docs_dir, progress)
    return Generated(data, output, docs_dir, time.perf_counter() - t0)


def mkdocs_command(root: Path, *, out: Path | None = None, serve: bool = False, dev_addr: str | None = None) -> list[str]:
    """The MkDocs command line for this repository (run it with ``cwd=root``)."""
    config = str(Path(root) / "mkdocs.yml")
    if serve:
        cmd = [sys.executable, "-m", "mkdocs", "serve", "-f", config, "--strict"]
        if dev_addr:
            cmd += ["--dev-addr", dev_addr]
        return cmd
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-f", config]
    if out is not None:
        cmd += ["--site-dir", str(Path(out).resolve())]
    return cmd


def build(root: Path | str, *, out: Path | str | None = None, quiet: bool = True) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the generated pages; returns the finished process (check returncode)."""
    root = Path(root).resolve()
    cmd = mkdocs_command(root, out=Path(out) if out is not None else None)
    if quiet:
        cmd.append("--quiet")
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)


__all__ = ["DOCS_DIR", "Generated", "build", "generate", "mkdocs_command", "record_pages"]
