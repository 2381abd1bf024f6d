"""Function attributes the runner sets before a launch (epldb.occupancy): the dynamic shared memory
opt-in (for any dynamic shared memory: the 48 KiB default counts the static shared memory too, and
the occupancy calculator places no block past it without the opt-in), and the non-portable cluster sizes for kernels compiled for clusters of more
than 8 blocks. On the CPU the driver is a recording fake; on the GPU, a staged realization launches
with a 200 KiB segment and with clusters of 16 and matches the float64 reference."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from epldb import occupancy


class _Function:
    ptr = 0x1234


class _Driver:
    """cuFuncGetAttribute answers the cluster width given; cuFuncSetAttribute is recorded."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.set: list[tuple[int, int]] = []

    def cuFuncGetAttribute(self, out: Any, attr: int, handle: Any) -> int:  # noqa: N802 (the driver's name)
        ctypes.cast(out, ctypes.POINTER(ctypes.c_int))[0] = self.width if attr == 11 else 1
        return 0

    def cuFuncSetAttribute(self, handle: Any, attr: int, value: ctypes.c_int) -> int:  # noqa: N802
        assert handle.value == _Function.ptr
        self.set.append((attr, value.value))
        return 0

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(self, out: Any, handle: Any, threads: Any,  # noqa: N802
                                                    shared: Any) -> int:
        """One block an SM, once the kernel has been opted into the bytes asked; none before."""
        opted = any(attr == 8 and value >= shared.value for attr, value in self.set)
        ctypes.cast(out, ctypes.POINTER(ctypes.c_int))[0] = 1 if opted else 0
        return 0


@pytest.fixture
def driver(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def install(width: int) -> _Driver:
        fake = _Driver(width)
        monkeypatch.setattr(occupancy, "driver", lambda: fake)
        return fake
    return install


@pytest.mark.parametrize("width, expected", [(1, []), (8, []), (16, [(14, 1)])])
def test_only_clusters_past_the_portable_size_opt_in(driver, width: int, expected: list) -> None:  # type: ignore[no-untyped-def]
    fake = driver(width)
    occupancy.allow_cluster_shape(_Function())
    assert fake.set == expected


def test_dynamic_shared_memory_is_set_in_bytes(driver) -> None:  # type: ignore[no-untyped-def]
    fake = driver(1)
    occupancy.allow_dynamic_shared(_Function(), 200 * 1024)
    assert fake.set == [(8, 200 * 1024)]


@pytest.mark.parametrize("shared", [48 * 1024, 160 * 1024])
def test_residency_is_asked_after_the_opt_in_a_launch_makes(driver, shared: int) -> None:  # type: ignore[no-untyped-def]
    fake = driver(1)
    fit = occupancy.resident_blocks(_Function(), (512, 1, 1), shared, 132)
    assert fake.set == [(8, shared)] and fit.blocks == 132


def test_a_refusal_is_an_occupancy_error(driver, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    fake = driver(1)
    monkeypatch.setattr(fake, "cuFuncSetAttribute", lambda *a: 1)
    with pytest.raises(occupancy.OccupancyError, match="cuFuncSetAttribute returned CUresult 1"):
        occupancy.allow_dynamic_shared(_Function(), 300 * 1024)


@pytest.mark.gpu
@pytest.mark.parametrize("point, cols", [
    ({"cluster": 1, "block": 256, "unroll": 2}, 4 * 12_801),    # a 200 KiB segment, past the 48 KiB default
    ({"cluster": 16, "block": 256, "unroll": 2}, 4 * 99_997),   # 16 blocks a row: a non-portable cluster
], ids=["200KiB-segment", "cluster-16"])
def test_staged_rows_launch_past_both_defaults(point: dict, cols: int) -> None:  # type: ignore[type-arg]
    from epldb.catalog import default_catalog
    from epldb.runner import prepare
    from epldb.verify import check_point

    shape = {"rows": 3, "cols": cols}
    launcher = prepare(default_catalog(), "softmax/online-staged", shape, {**point, "dtype": "float32"})
    row = check_point(launcher, shape, seed=11)
    assert row.status == "passed", row.detail


@pytest.mark.gpu
def test_the_board_places_fewer_sms_in_larger_clusters() -> None:
    """The placement a run records (epldb.evidence): every size placed, never more blocks than SMs,
    and a larger cluster never covers more SMs than a smaller one (its placements split into them)."""
    from epldb.device import device_info

    info = device_info()
    if info.compute_capability < (9, 0):
        pytest.skip("no thread-block clusters before compute capability 9.0")
    places = occupancy.cluster_places(info.max_shared_optin)
    assert list(places) == list(occupancy.CLUSTER_SIZES)
    covered = [size * n for size, n in places.items()]
    assert all(0 < c <= info.sm_count for c in covered), places
    assert covered == sorted(covered, reverse=True), places
