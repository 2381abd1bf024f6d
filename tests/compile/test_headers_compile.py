"""Every device building block compiles on its own: a program that includes just that header
builds for the widest target (sm_90a), so each header carries its own includes, and the
aggregators (epl/<scope>.cuh) and dispatchers that no kernel includes are compiled too. The list is
the include folder itself, never written by hand."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import epldb
from repository import repository_catalog
from epldb.compile.nvrtc import compile_program

ROOT = repository_catalog().root
INCLUDE = ROOT / "kernels" / "include"
HEADERS = sorted(p.relative_to(INCLUDE).as_posix() for p in (INCLUDE / "epl").rglob("*.cuh"))
_LOGS: dict[str, tuple[bool, str]] = {}


def _compile(header: str, include_dirs: tuple[Path, ...]) -> tuple[bool, str]:
    options = ["--gpu-architecture=compute_90a", "-std=c++17", f"-I{INCLUDE}", *(f"-I{d}" for d in include_dirs)]
    result = compile_program(f"#include <{header}>\n", f"include-{header.replace('/', '-')}.cu", [], options)
    return result.ok, result.log


def outcome(header: str, toolchain) -> tuple[bool, str]:
    """All headers are compiled at the first ask, two threads at a time (NVRTC releases the GIL)."""
    if not _LOGS:
        with ThreadPoolExecutor() as pool:
            _LOGS.update(zip(HEADERS, pool.map(lambda h: _compile(h, toolchain.include_dirs), HEADERS)))
    return _LOGS[header]


@pytest.mark.parametrize("header", HEADERS)
def test_header_compiles_on_its_own(header: str, toolchain) -> None:
    ok, log = outcome(header, toolchain)
    assert ok, f"{header} does not compile on its own:\n{log}"
    assert "warning" not in log, f"{header} compiles with warnings:\n{log}"


def test_the_include_folder_is_not_empty() -> None:
    assert len(HEADERS) > 10
