"""Contract ``block-tile-reduce``: every block reduces one tile and writes one float32 partial.

The harness contract of block-level reductions (kernels/include/epl/harness/block_tile_reduce.cuh):
``x`` has ``n`` elements of ``dtype``; the tile is ``block * items`` elements; block ``b`` reduces
``x[b*tile : min((b+1)*tile, n)]`` with ``op`` (sum or max), accumulating in float32, and writes
``partials[b]`` (float32). There are ``ceil(n / tile)`` partials; the last tile may be ragged.

Minimal traffic: read ``n * sizeof(T)`` bytes, write ``4 * ceil(n / tile)`` bytes. The work is
``n - ceil(n / tile)`` binary ops. Any realization is memory-bound by far, so the figure of merit
is GB/s against the device's read bandwidth.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

from epldb.contracts.base import (
    Arrays,
    ArraySpec,
    Contract,
    Peer,
    Point,
    Shape,
    Tolerance,
    paired_values,
)
from epldb.contracts.dtypes import from_float64, itemsize, to_float64
from epldb.contracts.peers import cupy_peer, torch_compile_peer, torch_eager_peer


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


class BlockTileReduce(Contract):
    name: ClassVar[str] = "block-tile-reduce"
    summary: ClassVar[str] = "Each block reduces a tile of block*items inputs to one float32 partial."
    shape_vars: ClassVar[tuple[str, ...]] = ("n",)
    input_names: ClassVar[tuple[str, ...]] = ("x",)
    output_names: ClassVar[tuple[str, ...]] = ("partials",)
    required_params: ClassVar[tuple[str, ...]] = ("block", "op")
    verify_shapes: ClassVar[tuple[Shape, ...]] = (
        {"n": 1},
        {"n": 31},
        {"n": 4097},
        {"n": 1_000_003},  # prime
        {"n": 50_000_017},  # large, odd: the last tile is ragged for every tile size
    )
    bench_shapes_full: ClassVar[tuple[Shape, ...]] = (
        {"n": 1 << 20},  # 4 MiB fp32: launch- and latency-bound
        {"n": 1 << 22},
        {"n": 1 << 24},
        {"n": 1 << 26},  # 256 MiB fp32: > 4x the H200's L2
        {"n": 1 << 28},  # 1 GiB fp32
        {"n": 100_000_007},  # prime: a ragged last tile at bandwidth scale
    )
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        {"n": 1 << 20},
        {"n": 1 << 26},
    )
    # Partials accumulate in float32 whatever the input type, and the reference uses the inputs'
    # exact (already rounded) values, so bfloat16 inputs are held to float32-accumulation error.
    # The inputs bound cancellation (make_inputs), so 1e-4 of |ref| is 3e-5 of sum|x| at worst.
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=1e-4, rel_l2=1e-4),
        "bfloat16": Tolerance(max_rel=1e-4, rel_l2=1e-4),
        "float16": Tolerance(max_rel=1e-4, rel_l2=1e-4),
        "float64": Tolerance(max_rel=1e-12, rel_l2=1e-12),
    }

    @staticmethod
    def tile(point: Point) -> int:
        return int(point["block"]) * int(point.get("items", 1))

    @staticmethod
    def op(point: Point) -> str:
        return str(point.get("op", "sum"))

    def tiles(self, shape: Shape, point: Point) -> int:
        return _ceil_div(shape["n"], self.tile(point))

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("x", self.dtype_of(point), shape["n"])]

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("partials", "float32", self.tiles(shape, point))]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        return {"n": int(arrays["x"].size)}

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        # Pairs (s*a, -s*a*u) (base.paired_values, as device-reduce): every tile, tiles being an even
        # number of elements, sums to at least a third of its sum|x|. Independent signs let a tile's
        # sum cancel to a few percent of sum|x| on an unlucky draw, and float32 rounding of a correct
        # kernel then exceeded 1e-4 of |ref| (smem-atomics, bf16, n = 4097, on the H200).
        return {"x": from_float64(paired_values(rng, shape["n"], xp), dtype, xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = to_float64(inputs["x"], self.dtype_of(point), xp)
        n, tile, op = shape["n"], self.tile(point), self.op(point)
        m = _ceil_div(n, tile)
        identity = 0.0 if op == "sum" else -np.inf
        padded = xp.full(m * tile, identity, dtype=xp.float64)
        padded[:n] = x
        rows = padded.reshape(m, tile)
        partials = rows.sum(axis=1) if op == "sum" else rows.max(axis=1)
        return {"partials": partials}

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        return shape["n"] * itemsize(self.dtype_of(point)) + 4 * self.tiles(shape, point)

    def flops(self, shape: Shape, point: Point) -> int:
        return shape["n"] - self.tiles(shape, point)

    def peer_params(self, point: Point) -> dict[str, Any]:
        return {"dtype": self.dtype_of(point), "op": self.op(point), "tile": self.tile(point)}

    def peers(self) -> tuple[Peer, ...]:
        return (
            torch_eager_peer("PyTorch eager: view(m, tile).sum/amax(dim=1) plus the ragged tail",
                             _tile_reduce_torch, "partials", tile_and_op),
            torch_compile_peer("torch.compile (dynamic shapes) of the same function",
                               _tile_reduce_torch, "partials", tile_and_op, dynamic=True),
            cupy_peer("CuPy reduction over axis 1 (CUB segmented reduce when enabled)",
                      _tile_reduce_cupy, "partials", tile_and_op),
        )


# --- peers -----------------------------------------------------------------------------------------
# Each solves exactly the contract's problem: one float32 partial per tile, the last tile ragged.
# torch.compile sees n and the tile as sizes (dynamic=True): one graph for every n and tile (two
# with the ragged-tail branch) per dtype and op, so a run does not spend minutes recompiling.


def tile_and_op(contract: Contract, shape: Shape, point: Point) -> tuple[int, str]:
    """The peers' arguments: the contract's tile and op (warp-tile-reduce's tile is 32 * items)."""
    c = cast(BlockTileReduce, contract)
    return c.tile(point), c.op(point)


def _tile_reduce_torch(x: Any, tile: int, op: str) -> Any:
    import torch

    n = x.numel()
    m = n // tile
    head = x[: m * tile].view(m, tile)
    if op == "sum":
        out = head.sum(dim=1, dtype=torch.float32)
    else:
        out = head.amax(dim=1).to(torch.float32)
    if n % tile:
        tail = x[m * tile :]
        t = tail.sum(dtype=torch.float32) if op == "sum" else tail.amax().to(torch.float32)
        out = torch.cat([out, t.view(1)])
    return out


def _tile_reduce_cupy(x: Any, tile: int, op: str) -> Any:
    import cupy

    n = x.size
    m = n // tile
    head = x[: m * tile].reshape(m, tile)
    if op == "sum":
        out = cupy.sum(head, axis=1, dtype=cupy.float32)
    else:
        out = cupy.max(head, axis=1).astype(cupy.float32, copy=False)
    if n % tile:
        tail = x[m * tile :]
        t = cupy.sum(tail, dtype=cupy.float32) if op == "sum" else cupy.max(tail).astype(cupy.float32)
        out = cupy.concatenate([out, t.reshape(1)])
    return out
