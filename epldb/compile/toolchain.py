"""The compile toolchain: NVRTC (through cuda-bindings), the CUDA and CCCL headers, nvdisasm.

Nothing here needs a GPU. The same code runs on a developer machine or CI (everything from pip,
``site-packages/nvidia/cu13/...``) and on the GPU machine (a CUDA toolkit under
``/usr/local/cuda``, perhaps without nvdisasm). Discovery happens on first use, never at import.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from epldb.problems import Location, Problem

# Headers that mark a directory as what we are looking for.
_CUDA_MARKER = "cuda_runtime.h"
_CCCL_MARKER = Path("cuda/std/version")


@dataclass(frozen=True)
class Toolchain:
    """What compiling and inspecting kernels needs, as found on this machine."""

    nvrtc_version: str | None  # "13.5"; None when NVRTC cannot be loaded
    cuda_include: Path | None  # holds cuda_runtime.h, cuda_bf16.h, cooperative_groups.h
    cccl_include: Path | None  # holds cuda/std/..., cub/... (may equal cuda_include)
    headers_version: str | None  # CUDA_VERSION of cuda_include's cuda.h, e.g. "13.5"
    cccl_version: str | None  # CCCL_VERSION, e.g. "3.5.0"
    nvdisasm: Path | None  # None: SASS is not inspected
    problems: tuple[Problem, ...] = field(default=())

    @property
    def include_dirs(self) -> tuple[Path, ...]:
        """The system include directories, in search order, without duplicates."""
        dirs = [d for d in (self.cuda_include, self.cccl_include) if d is not None]
        return tuple(dict.fromkeys(dirs))

    @property
    def usable(self) -> bool:
        return self.nvrtc_version is not None and self.cuda_include is not None

    @functools.cached_property
    def nvdisasm_version(self) -> str | None:
        """nvdisasm's release line, e.g. "13.5.37"; part of the cached SASS facts' identity."""
        if self.nvdisasm is None:
            return None
        try:
            out = subprocess.run(
                [str(self.nvdisasm), "--version"], capture_output=True, text=True, timeout=60, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        m = re.search(r"V(\d+\.\d+\.\d+)", out)
        return m.group(1) if m else None


def nvrtc_version() -> tuple[str | None, str | None]:
    """NVRTC's "major.minor", or None and the reason it could not be loaded."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        return None, f"cuda-bindings is not importable ({exc}); install cuda-bindings and nvidia-cuda-nvrtc"
    try:
        err, major, minor = nvrtc.nvrtcVersion()
    except (RuntimeError, OSError) as exc:  # libnvrtc missing or not loadable
        return None, f"NVRTC could not be loaded: {exc}"
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        return None, f"nvrtcVersion failed: {err}"
    return f"{major}.{minor}", None


def _site_dirs() -> list[Path]:
    """Directories Python imports from: where pip puts the nvidia/* wheels."""
    out: list[Path] = []
    for entry in sys.path:
        p = Path(entry or ".")
        if p.is_dir() and (p / "nvidia").is_dir():
            out.append(p)
    return list(dict.fromkeys(out))


def _toolkit_roots() -> list[Path]:
    roots = [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    roots.append(Path("/usr/local/cuda"))
    # Versioned installs when the /usr/local/cuda link is missing; newest first.
    roots.extend(sorted(Path("/usr/local").glob("cuda-*"), reverse=True))
    return list(dict.fromkeys(roots))


def _cuda_include_candidates() -> list[Path]:
    cands: list[Path] = []
    for site in _site_dirs():
        nv = site / "nvidia"
        cands.extend(sorted(nv.glob("cu[0-9]*/include"), reverse=True))  # CUDA 13 wheels
        cands.append(nv / "cuda_runtime" / "include")  # CUDA 12 wheels
    cands.extend(r / "include" for r in _toolkit_roots())
    return [c for c in dict.fromkeys(cands) if (c / _CUDA_MARKER).is_file()]


def _cccl_candidates(cuda_include: Path) -> list[Path]:
    # CUDA 13 keeps CCCL in include/cccl (its own -I); CUDA 12 kept it in include itself.
    cands = [cuda_include / "cccl", cuda_include]
    for site in _site_dirs():
        nv = site / "nvidia"
        cands.extend(sorted(nv.glob("cu[0-9]*/include/cccl"), reverse=True))
        cands.append(nv / "cuda_cccl" / "include")
    cands.extend(r / "include" / "cccl" for r in _toolkit_roots())
    return [c for c in dict.fromkeys(cands) if (c / _CCCL_MARKER).is_file()]


def _define(path: Path, name: str) -> int | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^\s*#\s*define\s+{name}\s+(\d+)\s*$", text, re.MULTILINE)
    return int(m.group(1)) if m else None


def headers_version(cuda_include: Path) -> str | None:
    v = _define(cuda_include / "cuda.h", "CUDA_VERSION") or _define(cuda_include / "cuda_runtime_api.h", "CUDART_VERSION")
    return f"{v // 1000}.{(v % 1000) // 10}" if v else None


def cccl_version(cccl_include: Path) -> str | None:
    v = _define(cccl_include / "cuda" / "std" / "__cccl" / "version.h", "CCCL_VERSION")
    return f"{v // 1000000}.{(v // 1000) % 1000}.{v % 1000}" if v else None


def _pick_cuda_include(nvrtc: str | None) -> Path | None:
    """The header directory matching NVRTC best: same major.minor, else same major, else any.

    NVRTC of one release may not parse the headers of a newer one, and pip and the toolkit can both
    be present on one machine (the GPU machine has a torch venv's nvidia/cu13 without CCCL beside
    /usr/local/cuda), so the version decides first, then having CCCL in the same tree, then order.
    """
    cands = _cuda_include_candidates()
    if not cands:
        return None

    def rank(c: Path) -> tuple[int, int]:
        v = headers_version(c)
        match = 0 if nvrtc is None or v == nvrtc else 1 if v and v.split(".")[0] == nvrtc.split(".")[0] else 2
        own_cccl = (c / "cccl" / _CCCL_MARKER).is_file() or (c / _CCCL_MARKER).is_file()
        return match, 0 if own_cccl else 1

    return min(cands, key=rank)  # min is stable: search order breaks ties


def _find_nvdisasm(cuda_include: Path | None) -> Path | None:
    cands: list[Path] = []
    if cuda_include is not None:
        cands.append(cuda_include.parent / "bin" / "nvdisasm")  # the tool of the same release first
    for site in _site_dirs():
        nv = site / "nvidia"
        cands.extend(sorted(nv.glob("cu[0-9]*/bin/nvdisasm"), reverse=True))
        cands.append(nv / "cuda_nvdisasm" / "bin" / "nvdisasm")
    cands.extend(r / "bin" / "nvdisasm" for r in _toolkit_roots())
    on_path = shutil.which("nvdisasm")
    if on_path:
        cands.append(Path(on_path))
    for c in dict.fromkeys(cands):
        if c.is_file() and os.access(c, os.X_OK):
            return c
    return None


@functools.lru_cache(maxsize=1)
def find_toolchain() -> Toolchain:
    """Discover the toolchain once per process (call ``find_toolchain.cache_clear()`` to redo)."""
    problems: list[Problem] = []
    where = Location("<toolchain>")
    version, why = nvrtc_version()
    if why:
        problems.append(Problem(where, why, "toolchain-nvrtc"))
    cuda_include = _pick_cuda_include(version)
    cccl_include: Path | None = None
    if cuda_include is None:
        problems.append(
            Problem(where, "CUDA headers not found (pip nvidia-cuda-runtime, $CUDA_HOME/include, /usr/local/cuda/include)", "toolchain-headers")
        )
    else:
        cccl = _cccl_candidates(cuda_include)
        cccl_include = cccl[0] if cccl else None
        if cccl_include is None:
            problems.append(Problem(where, f"CCCL headers (cuda/std/version) not found next to {cuda_include}", "toolchain-headers", severity="warning"))
    hv = headers_version(cuda_include) if cuda_include else None
    if version and hv and hv != version:
        problems.append(
            Problem(where, f"NVRTC {version} compiles with CUDA {hv} headers from {cuda_include}", "toolchain-headers", severity="notice")
        )
    nvdisasm = _find_nvdisasm(cuda_include)
    if nvdisasm is None:
        problems.append(
            Problem(where, "nvdisasm not found (pip nvidia-cuda-nvdisasm, $CUDA_HOME/bin, PATH): SASS is not inspected", "toolchain-nvdisasm", severity="warning")
        )
    return Toolchain(
        nvrtc_version=version,
        cuda_include=cuda_include,
        cccl_include=cccl_include,
        headers_version=hv,
        cccl_version=cccl_version(cccl_include) if cccl_include else None,
        nvdisasm=nvdisasm,
        problems=tuple(problems),
    )
