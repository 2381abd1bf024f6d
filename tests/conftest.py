"""Shared test set-up: the tests/ folder on the import path (for the examples collector), and GPU
tests skipped cleanly where no CUDA device can be used."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@cache
def gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device: all mean "skip"
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU with CuPy (none here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
