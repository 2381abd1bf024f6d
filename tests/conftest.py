"""Shared test set-up: the tests/ folder on the import path (for the examples collector), and GPU
tests skipped cleanly where no CUDA device can be used. Where one can, the GPU tests' kernels are
compiled side by side before the first of them runs (they would otherwise compile one realization
after another, a minute each for the larger parameter spaces): those the selected modules name in
GPU_REALIZATIONS, or every realization where one does not."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session", autouse=True)
def _gpu_kernels_prebuilt(request: pytest.FixtureRequest) -> None:
    if not gpu_available() or not any("gpu" in item.keywords for item in request.session.items):
        return
    if os.environ.get("EPL_NO_PREBUILD") == "1":  # a run that builds only what its tests load
        return
    import epldb
    from epldb.runner import prebuild

    catalog = epldb.load(lint=False)
    # A test module may name the realizations its GPU tests load (GPU_REALIZATIONS): a run of only
    # such modules builds only those, instead of the whole catalog (minutes on a fresh machine).
    gpu_items = [item for item in request.session.items if "gpu" in item.keywords]
    named = [getattr(getattr(item, "module", None), "GPU_REALIZATIONS", None) for item in gpu_items]
    ids = list(catalog.realizations) if any(n is None for n in named) else [r for n in named for r in n]
    prebuild(catalog, list(dict.fromkeys(ids)))
