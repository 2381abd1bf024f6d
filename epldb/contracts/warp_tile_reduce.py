"""Contract ``warp-tile-reduce``: every WARP reduces one tile of ``32 * items`` inputs to one partial.

The harness contract of warp-level reductions (kernels/include/epl/harness/warp_tile_reduce.cuh):
``x`` has ``n`` elements of ``dtype``; the tile is ``32 * items`` consecutive elements; warp ``w``
(counted over the whole grid: block ``b`` holds warps ``b * block/32 .. (b+1) * block/32 - 1``,
each independent, no barrier between them) reduces ``x[w*tile : min((w+1)*tile, n)]`` with ``op``
(sum or max) and writes ``partials[w]``. There are ``ceil(n / tile)`` partials; the last tile may
be ragged.

Element types and their accumulation:

* float32 and bfloat16 inputs accumulate in float32 and give float32 partials, judged against the
  float64 reduction of the inputs' exact values (1e-4, as block-tile-reduce);
* int32 inputs (the integer-only ``redux.sync`` instruction) give int32 partials with the
  semantics of that instruction: the SUM WRAPS AROUND modulo 2^32 (two's complement), max is the
  signed maximum. The reference is exact: an int64 reduction, then wrapped to int32, and the
  tolerance is zero. Generated inputs have 2 <= |x| < 2^20, so the sum of a tile of up to
  2^11 elements (items <= 64) stays below 2^31 and never actually wraps: the check is then the
  plain integer sum, with nothing a wrap could hide.

Minimal traffic: read ``n * sizeof(T)`` bytes, write ``4 * ceil(n / tile)`` bytes. Memory-bound
by far: the figure of merit is GB/s against the device's read bandwidth.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import Arrays, ArraySpec, Contract, Peer, PeerCall, Point, Shape, Tolerance, uniform01
from epldb.contracts.block_tile_reduce import BlockTileReduce, tile_and_op
from epldb.contracts.dtypes import itemsize
from epldb.contracts.peers import (
    CUPY,
    TORCH_COMPILE,
    TORCH_EAGER,
    Prepare,
    prepare_cupy,
    prepare_torch_compile,
    prepare_torch_eager,
)

#: Threads per warp: the tile of one partial is WARP * items elements.
WARP = 32
#: Generated int32 inputs have magnitudes in [2, INT_INPUT_BOUND): a tile sum cannot reach 2^31
#: while the tile has at most 2^31 / 2^20 = 2^11 elements.
INT_INPUT_BOUND = 1 << 20
#: The largest tile whose int32 sum of generated inputs cannot wrap.
INT_MAX_TILE = (2**31 - 1) // (INT_INPUT_BOUND - 1)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def wrap_int32(values: Any, xp: Any = np) -> Any:
    """Two's-complement wrap of int64 ``values`` to the int32 range (what a 32-bit adder keeps)."""
    v = values.astype(xp.int64)
    return ((v + 2**31) % 2**32) - 2**31


def nonzero_int_values(rng: Any, count: int, xp: Any = np, bound: int = INT_INPUT_BOUND) -> Any:
    """``count`` int32 values of both signs, magnitudes log-uniform in [2, bound): never zero, and
    never -1, the int32 reading of the verifier's poison bytes (0xFF...), so an unwritten partial
    cannot pass as a one-element tile's value."""
    exponent = 1.0 + uniform01(rng, count) * (np.log2(bound) - 1.0)
    magnitude = xp.minimum(xp.floor(xp.exp2(exponent)), bound - 1)
    sign = xp.where(uniform01(rng, count) < 0.5, -1.0, 1.0)
    return (sign * magnitude).astype(xp.int32)


class WarpTileReduce(BlockTileReduce):
    """The block-tile-reduce problem with a tile of one warp (block = 32), plus int32 inputs.

    Shapes, float tolerances, the float reference, flops and the peer key are the block contract's,
    read through ``tile``; what differs is the tile, the int32 path and the partials' dtype.
    """

    name: ClassVar[str] = "warp-tile-reduce"
    summary: ClassVar[str] = "Each warp reduces a tile of 32*items inputs to one partial (float32, or int32 for int32)."
    required_params: ClassVar[tuple[str, ...]] = ("block", "items", "op")
    tolerance: ClassVar[dict[str, Tolerance]] = {
        **BlockTileReduce.tolerance,
        "int32": Tolerance(max_rel=0.0, rel_l2=0.0),  # exact: integer arithmetic
    }

    @staticmethod
    def tile(point: Point) -> int:
        return WARP * int(point.get("items", 1))

    def partial_dtype(self, point: Point) -> str:
        return "int32" if self.dtype_of(point) == "int32" else "float32"

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("partials", self.partial_dtype(point), self.tiles(shape, point))]

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        if dtype == "int32":
            return {"x": nonzero_int_values(rng, shape["n"], xp)}
        return super().make_inputs(shape, dtype, point, rng, xp)

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        if self.dtype_of(point) != "int32":
            return super().reference(inputs, shape, point, xp)
        n, tile, op = shape["n"], self.tile(point), self.op(point)
        m = _ceil_div(n, tile)
        padded = xp.full(m * tile, 0 if op == "sum" else -(2**31), dtype=xp.int64)
        padded[:n] = inputs["x"].astype(xp.int64)
        rows = padded.reshape(m, tile)
        exact = wrap_int32(rows.sum(axis=1), xp) if op == "sum" else rows.max(axis=1)
        return {"partials": exact.astype(xp.float64)}  # |v| < 2^31: exact in float64

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        return shape["n"] * itemsize(self.dtype_of(point)) + itemsize(self.partial_dtype(point)) * self.tiles(shape, point)

    def peers(self) -> tuple[Peer, ...]:
        # The block-tile peers, names and titles as they are; int32 instances go to int32 peers.
        return tuple(Peer(p.name, p.title, _int32_or(_INT32[p.name], p.prepare)) for p in super().peers())


# --- peers -----------------------------------------------------------------------------------------
# A warp tile of 32*items elements is the block-tile-reduce problem with block=32: for the float
# dtypes the block-tile peers solve it as they are (they read the contract's tile, 32 * items).
# int32 needs int32 partials, which wrap like the 32-bit adder.


def _tile_reduce_int_torch(x: Any, tile: int, op: str) -> Any:
    import torch

    n = x.numel()
    m = n // tile
    head = x[: m * tile].view(m, tile)
    out = head.sum(dim=1, dtype=torch.int32) if op == "sum" else head.amax(dim=1)
    if n % tile:
        tail = x[m * tile :]
        t = tail.sum(dtype=torch.int32) if op == "sum" else tail.amax()
        out = torch.cat([out, t.view(1)])
    return out


def _tile_reduce_int_cupy(x: Any, tile: int, op: str) -> Any:
    import cupy

    m = x.size // tile
    head = x[: m * tile].reshape(m, tile)
    out = cupy.sum(head, axis=1, dtype=cupy.int32) if op == "sum" else cupy.max(head, axis=1)
    if x.size % tile:
        tail = x[m * tile :]
        t = cupy.sum(tail, dtype=cupy.int32) if op == "sum" else cupy.max(tail)
        out = cupy.concatenate([out, t.reshape(1)])
    return out


#: The int32 peers by the name of the block-tile peer they stand in for.
_INT32: dict[str, Prepare] = {
    TORCH_EAGER: prepare_torch_eager(_tile_reduce_int_torch, "partials", tile_and_op),
    TORCH_COMPILE: prepare_torch_compile(_tile_reduce_int_torch, "partials", tile_and_op, dynamic=True),
    CUPY: prepare_cupy(_tile_reduce_int_cupy, "partials", tile_and_op),
}


def _int32_or(int32: Prepare, other: Prepare) -> Prepare:
    """``int32`` for int32 instances, ``other`` for the rest."""

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        return (int32 if contract.dtype_of(point) == "int32" else other)(contract, shape, point)

    return prepare
