"""Tensor-map launch arguments: TMA descriptors a realization's launch declares (``launch.tensor_maps``),
checked without a GPU and encoded on the host with the driver's ``cuTensorMapEncodeTiled``.

A record declares, per name, the array the map reads or writes (a contract array or a scratch
buffer), its element type, the array's dims and the box (the tile one copy moves), outermost first
as the array is indexed (``[rows, cols]``), and a swizzle::

    launch:
      tensor_maps:
        a_tiles: {array: a, dtype: dtype, dims: [m, k], box: [bm, bk], swizzle: 128B}
      steps:
        - {entry: main, grid: ..., block: ..., args: [a_tiles, c, m, k]}

A step passes the map bare by name; the kernel takes it as ``const __grid_constant__ epl::TensorMap``
(kernels/include/epl/block/tensor_copy.cuh) and copies boxes with ``epl::tma_load_2d`` /
``tma_store_2d`` (coordinates innermost first, as the PTX takes them). The rows are contiguous
unless ``strides`` (elements, one per outer dim) says otherwise.

:func:`check_tensor_map` holds the driver's rules (rank 1-5, every box side 1-256, strides a
multiple of 16 bytes, the inner box a multiple of 16 bytes and at most the swizzle span), so lint
finds a bad map at every verification shape; :func:`encode_tiled` adds the address rule (16-byte
aligned) and calls the driver.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from epldb.launch.env import ITEMSIZE

#: Bytes of a CUtensorMap (CU_TENSOR_MAP_NUM_QWORDS = 16); the driver wants it 64-byte aligned.
TENSOR_MAP_BYTES = 128

#: The swizzle names a record may use, and the CUtensorMapSwizzle value and span in bytes of each.
SWIZZLE: dict[str, tuple[int, int]] = {"none": (0, 0), "32B": (1, 32), "64B": (2, 64), "128B": (3, 128)}

#: CUtensorMapDataType of each element type a map may carry.
DATA_TYPE: dict[str, int] = {"uint8": 0, "int8": 0, "uint16": 1, "uint32": 2, "int32": 3, "int64": 5,
                             "float16": 6, "float32": 7, "float64": 8, "bfloat16": 9}

#: Out-of-bounds fill: zeros, or NaN for floating types (CUtensorMapFloatOOBfill).
OOB_FILL = {"zero": 0, "nan": 1}

MAX_RANK = 5
MAX_BOX = 256
MAX_DIM = 2**32
MAX_STRIDE = 2**40


@dataclass(frozen=True)
class TensorMapArg:
    """A resolved tensor map of one launch: the array it describes and its geometry, outermost
    first (``strides`` in bytes, one per outer dim); ``encode_tiled`` turns it into the 128 bytes the
    kernel receives once the array's address is known."""

    name: str
    array: str
    dtype: str
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    swizzle: str = "none"
    oob: str = "zero"

    @property
    def box_bytes(self) -> int:
        """Bytes one box copy lands in shared memory (what the mbarrier expects)."""
        n = ITEMSIZE.get(self.dtype, 0)
        for b in self.box:
            n *= b
        return n


def check_tensor_map(dtype: str, dims: Sequence[int], strides: Sequence[int], box: Sequence[int],
                     swizzle: str = "none") -> list[str]:
    """What the driver would refuse in a tiled map, as sentences (empty: encodable). ``dims`` and
    ``box`` outermost first; ``strides`` in bytes, one per outer dim."""
    out: list[str] = []
    if dtype not in DATA_TYPE or dtype not in ITEMSIZE:
        return [f"element type {dtype!r} has no tensor-map data type (known: {', '.join(sorted(DATA_TYPE))})"]
    if swizzle not in SWIZZLE:
        return [f"swizzle {swizzle!r} is not one of {', '.join(SWIZZLE)}"]
    rank = len(dims)
    if not 1 <= rank <= MAX_RANK:
        return [f"a tensor map has 1 to {MAX_RANK} dims, got {rank}"]
    if len(box) != rank:
        return [f"box has {len(box)} sides for {rank} dims"]
    if len(strides) != rank - 1:
        return [f"strides has {len(strides)} entries; {rank} dims take {rank - 1} (one per outer dim)"]
    item = ITEMSIZE[dtype]
    for i, d in enumerate(dims):
        if not 1 <= d <= MAX_DIM:
            out.append(f"dim {i} is {d}; it must be between 1 and 2^32")
    for i, s in enumerate(strides):
        if s % 16 or not 0 < s < MAX_STRIDE:
            out.append(f"stride of dim {i} is {s} bytes; it must be a positive multiple of 16 below 2^40 "
                       "(a row of an odd length breaks it: pad the row, or use another entry)")
    for i, b in enumerate(box):
        if not 1 <= b <= MAX_BOX:
            out.append(f"box side {i} is {b}; it must be between 1 and {MAX_BOX}")
    inner = box[-1] * item
    if inner % 16:
        out.append(f"the inner box side is {inner} bytes; it must be a multiple of 16")
    span = SWIZZLE[swizzle][1]
    if span and inner > span:
        out.append(f"the inner box side is {inner} bytes, more than the {swizzle} swizzle span")
    return out


def contiguous_strides(dtype: str, dims: Sequence[int]) -> tuple[int, ...]:
    """Byte strides of the outer dims of a row-major array of ``dims`` (outermost first)."""
    item = ITEMSIZE[dtype]
    out: list[int] = []
    step = item
    for d in reversed(dims[1:]):
        step *= d
        out.append(step)
    return tuple(reversed(out))


class TensorMapError(RuntimeError):
    """A map the rules or the driver refuse (the reasons, or the CUresult, in the message)."""


@lru_cache(maxsize=1)
def _encode_fn() -> Any:
    from epldb.occupancy import driver

    fn = driver().cuTensorMapEncodeTiled
    u32p, u64p = ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint64)
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, u64p, u64p, u32p, u32p,
                   ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


class TensorMapBytes(ctypes.Structure):
    """The 128 bytes of a CUtensorMap, 64-byte aligned: a kernel parameter of that size passed by
    value (cuLaunchKernel copies it into the parameter space)."""

    _fields_ = [("opaque", ctypes.c_uint64 * 16)]
    _pack_ = 8


def _aligned_buffer() -> tuple[Any, int]:
    raw = ctypes.create_string_buffer(TENSOR_MAP_BYTES + 64)
    at = (ctypes.addressof(raw) + 63) & ~63
    return raw, at


def encode_tiled(tm: TensorMapArg, address: int) -> TensorMapBytes:
    """Encode ``tm`` for the array at device ``address``: the driver's cuTensorMapEncodeTiled (no
    interleave, L2 promotion of 128 bytes, the declared swizzle and out-of-bounds fill). Raises
    TensorMapError with the reasons when the map breaks a rule, or the driver's CUresult."""
    problems = check_tensor_map(tm.dtype, tm.dims, tm.strides, tm.box, tm.swizzle)
    if address % 16:
        problems.append(f"array '{tm.array}' starts at {address:#x}, not on a 16-byte boundary")
    if problems:
        raise TensorMapError(f"tensor map '{tm.name}': " + "; ".join(problems))
    rank = len(tm.dims)
    dims = (ctypes.c_uint64 * rank)(*reversed(tm.dims))  # the driver counts innermost first
    strides = (ctypes.c_uint64 * max(rank - 1, 1))(*reversed(tm.strides))
    box = (ctypes.c_uint32 * rank)(*reversed(tm.box))
    ones = (ctypes.c_uint32 * rank)(*([1] * rank))
    raw, at = _aligned_buffer()
    result = _encode_fn()(ctypes.c_void_p(at), DATA_TYPE[tm.dtype], rank, ctypes.c_void_p(address), dims, strides,
                          box, ones, 0, SWIZZLE[tm.swizzle][0], 2, OOB_FILL[tm.oob])
    if result != 0:
        raise TensorMapError(f"tensor map '{tm.name}': cuTensorMapEncodeTiled returned CUresult {result}")
    out = TensorMapBytes()
    ctypes.memmove(ctypes.addressof(out), at, TENSOR_MAP_BYTES)
    del raw
    return out
