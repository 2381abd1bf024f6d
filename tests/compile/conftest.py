"""Fixtures for the compile room: a tiny repository and the toolchain (skip when NVRTC is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compile_fixtures import make_repo
from epldb.compile.toolchain import Toolchain, find_toolchain


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    tc = find_toolchain()
    if not tc.usable:
        pytest.skip(f"NVRTC or CUDA headers unavailable: {[p.message for p in tc.problems]}")
    return tc
