"""How many blocks of a loaded kernel the device holds at once: the CUDA driver's occupancy
calculator, called through ctypes because CuPy wraps neither the cluster query nor the kernel's
compile-time cluster width.

A persistent grid (blocks that loop over the work) and a grid of clusters that wait on each other
are only what their records say when every block is resident at once; a launch step's ``resident``
claim is checked with :func:`resident_blocks` on the GPU. :func:`allow_dynamic_shared` lifts a
kernel's dynamic shared memory limit past the default 48 KiB, which CuPy's Function (unlike its
RawKernel) has no property for, and :func:`allow_cluster_shape` opts a kernel compiled for a
cluster of more than 8 blocks into the non-portable sizes. Importing this module loads nothing.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# CUfunction_attribute values (cuda.h, CUDA 12+).
_ATTR_REQUIRED_CLUSTER_WIDTH = 11
_ATTR_REQUIRED_CLUSTER_HEIGHT = 12
_ATTR_REQUIRED_CLUSTER_DEPTH = 13
_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
_ATTR_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
# Blocks per cluster every sm_90 device places; up to 16 on the H100/H200 with the opt-in.
PORTABLE_CLUSTER_BLOCKS = 8


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig: grid, block, dynamic shared memory, stream, no extra attributes."""

    _fields_ = [
        ("grid_x", ctypes.c_uint), ("grid_y", ctypes.c_uint), ("grid_z", ctypes.c_uint),
        ("block_x", ctypes.c_uint), ("block_y", ctypes.c_uint), ("block_z", ctypes.c_uint),
        ("shared_bytes", ctypes.c_uint),
        ("stream", ctypes.c_void_p),
        ("attrs", ctypes.c_void_p),
        ("num_attrs", ctypes.c_uint),
    ]


class OccupancyError(RuntimeError):
    """The driver refused an occupancy query (its CUresult in the message)."""


@lru_cache(maxsize=1)
def driver() -> Any:
    """The CUDA driver library (libcuda), loaded once for every direct driver call of epldb."""
    return ctypes.CDLL("libcuda.so.1")


def _check(result: int, call: str) -> None:
    if result != 0:
        raise OccupancyError(f"{call} returned CUresult {result}")


def _handle(function: Any) -> ctypes.c_void_p:
    """The CUfunction of a CuPy Function (``.ptr``) or RawKernel (``.kernel.ptr``)."""
    ptr = getattr(function, "ptr", None)
    if ptr is None:
        ptr = function.kernel.ptr
    return ctypes.c_void_p(int(ptr))


def cluster_shape(function: Any) -> tuple[int, int, int]:
    """The compile-time cluster dimensions (``__cluster_dims__``), (1, 1, 1) for a kernel without."""
    dims = []
    for attr in (_ATTR_REQUIRED_CLUSTER_WIDTH, _ATTR_REQUIRED_CLUSTER_HEIGHT, _ATTR_REQUIRED_CLUSTER_DEPTH):
        value = ctypes.c_int(0)
        _check(driver().cuFuncGetAttribute(ctypes.byref(value), attr, _handle(function)), "cuFuncGetAttribute")
        dims.append(max(1, value.value))
    return dims[0], dims[1], dims[2]


def _set_attribute(function: Any, attr: int, value: int) -> None:
    _check(driver().cuFuncSetAttribute(_handle(function), attr, ctypes.c_int(value)), "cuFuncSetAttribute")


def allow_dynamic_shared(function: Any, shared_bytes: int) -> None:
    """Let ``function`` launch with ``shared_bytes`` of dynamic shared memory (the opt-in above
    48 KiB; the driver refuses more than the device's per-block maximum)."""
    _set_attribute(function, _ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_bytes)


def allow_cluster_shape(function: Any) -> None:
    """Opt ``function`` into non-portable cluster sizes when its compile-time cluster holds more
    than :data:`PORTABLE_CLUSTER_BLOCKS` blocks (a launch fails without it); nothing otherwise."""
    x, y, z = cluster_shape(function)
    if x * y * z > PORTABLE_CLUSTER_BLOCKS:
        _set_attribute(function, _ATTR_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)


@dataclass(frozen=True)
class Residency:
    """What the device holds of one kernel at one block size: blocks at once, and how they group."""

    blocks: int  # blocks resident at once on the whole device
    cluster_blocks: int  # blocks per cluster (1: no cluster)

    @property
    def clusters(self) -> int:
        """Clusters resident at once (blocks, for a kernel without clusters)."""
        return self.blocks // self.cluster_blocks


def resident_blocks(function: Any, block: tuple[int, int, int], shared_bytes: int, sm_count: int) -> Residency:
    """The blocks of ``function`` the device holds at once at this block size and dynamic shared
    memory (opting the kernel into it first, as its launch does): per SM times the SMs, or, for a
    kernel with compile-time cluster dimensions (the only
    clusters the runner launches), the clusters the GPCs can place times their size (fewer than
    the SMs allow, as a cluster's blocks must share one GPC)."""
    threads = block[0] * block[1] * block[2]
    if shared_bytes > 0:  # as a launch does: past the default, the calculator places none without it
        allow_dynamic_shared(function, shared_bytes)
    shape = cluster_shape(function)
    size = shape[0] * shape[1] * shape[2]
    if size == 1:
        per_sm = ctypes.c_int(0)
        _check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(per_sm), _handle(function), ctypes.c_int(threads), ctypes.c_size_t(shared_bytes)),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return Residency(per_sm.value * sm_count, 1)
    config = _LaunchConfig(shape[0], shape[1], shape[2], block[0], block[1], block[2], shared_bytes, None, None, 0)
    clusters = ctypes.c_int(0)
    _check(driver().cuOccupancyMaxActiveClusters(ctypes.byref(clusters), _handle(function), ctypes.byref(config)),
           "cuOccupancyMaxActiveClusters")
    return Residency(clusters.value * size, size)


#: Cluster sizes whose placement a run records (epldb.evidence): 16 is the non-portable maximum.
CLUSTER_SIZES = (2, 4, 8, 16)

# One empty kernel per cluster size; launch bounds of 1024 threads so that a block holding the
# SM's whole opt-in shared memory is the only one on its SM.
_CLUSTER_PROBE = "template <int C> __global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(1024) epl_cluster_probe() {}\n"


def cluster_places(max_shared_bytes: int, sizes: tuple[int, ...] = CLUSTER_SIZES) -> dict[int, int]:
    """Clusters of each size the device places at once at one block an SM: a property of the board,
    not of a kernel, since a cluster's blocks must share a GPC and boards of one model enable
    different SMs. (Two H200s have placed 8 and 7 clusters of 16, a persistent grid of 128 or
    112 SMs.) Needs a GPU of compute capability 9.0 or newer and CuPy; compiles one empty kernel
    per size."""
    import cupy

    module = cupy.RawModule(code=_CLUSTER_PROBE, options=("--std=c++17",),
                            name_expressions=[f"epl_cluster_probe<{c}>" for c in sizes])
    places: dict[int, int] = {}
    for c in sizes:
        function = module.get_function(f"epl_cluster_probe<{c}>")
        allow_cluster_shape(function)
        places[c] = resident_blocks(function, (1024, 1, 1), max_shared_bytes, 0).clusters
    return places
