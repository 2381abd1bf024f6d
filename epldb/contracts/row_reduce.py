"""Contract ``row-reduce``: every row of a row-major [rows, cols] matrix reduced to one float32.

The contract of segmented-row-reduce (kernels/include/epl/body/reduce*.cuh): ``x`` is ``rows x cols``
elements of ``dtype`` (float32 or bfloat16), row-major and contiguous; ``out[r]`` is ``op``
(sum or max) over ``x[r, :]``, accumulated in float32 and stored as float32. The reference is
float64 over the inputs' exact values.

Minimal traffic: read ``rows * cols * sizeof(T)`` bytes once, write ``4 * rows`` bytes. The work
is ``rows * (cols - 1)`` binary ops, so every realization is memory-bound by far and the figure of
merit is GB/s against the device's read bandwidth (the H200 here: about 4540 GB/s, i.e. 59 us for
a 64 Mi-element float32 bench shape and 30 us in bfloat16).

Verification shapes are sizes that are multiples of nothing (1x1, 3x31, 7x4097, 1031x257,
5x100003), two whose rows are 16-byte aligned in both dtypes but ragged against every lane count
(33x8, 1029x1032, so the vector path and its ragged last round are checked), and a large aligned
one (997x65544, 65 M elements, beyond L2). The bench shapes are the issue's row shapes as written,
from 262144 short rows to 128 long ones: 64 Mi elements, except 32768x1024 and 128x262144 with
32 Mi (128 MiB in float32, 64 MiB in bfloat16: the bench rotates input sets past the L2).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import (
    Arrays,
    Contract,
    Peer,
    Point,
    Shape,
    Tolerance,
    wide_range_values,
)
from epldb.contracts.dtypes import from_float64
from epldb.contracts.peers import cupy_peer, torch_compile_peer, torch_eager_peer
from epldb.contracts.rows import RowContract


class RowReduce(RowContract):
    name: ClassVar[str] = "row-reduce"
    summary: ClassVar[str] = "Each row of a row-major [rows, cols] matrix reduced to one float32 (sum or max)."
    output_names: ClassVar[tuple[str, ...]] = ("out",)
    required_params: ClassVar[tuple[str, ...]] = ("op",)
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        {"rows": 262_144, "cols": 256},
        {"rows": 128, "cols": 262_144},
    )
    # Float32 accumulation in any order the realizations use stays within a few 1e-6 of the
    # largest row result: the worst, 4 lanes per row each summing every 4th element of a
    # 100003-element row in one sequential chain, measured 5.9e-6 (max_rel) over 6 seeds
    # (tests/contracts/test_row_reduce.py replays that order). 5e-5 leaves a margin of 8 and
    # still fails a lost element of magnitude above ~2 (about half of them) in the largest
    # verified rows, and any lost vector or wrong row. Max is exact.
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=5e-5, rel_l2=5e-5),
        "bfloat16": Tolerance(max_rel=5e-5, rel_l2=5e-5),
    }

    @staticmethod
    def op(point: Point) -> str:
        return str(point.get("op", "sum"))

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        rows, cols = shape["rows"], shape["cols"]
        values = wide_range_values(rng, rows * cols, xp)
        return {"x": from_float64(values, dtype, xp).reshape(rows, cols)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = self.exact_inputs(inputs, shape, point, xp)["x"]
        out = x.sum(axis=1) if self.op(point) == "sum" else x.max(axis=1)
        return {"out": out}

    def flops(self, shape: Shape, point: Point) -> int:
        return shape["rows"] * (shape["cols"] - 1)

    def peer_params(self, point: Point) -> dict[str, Any]:
        return {"dtype": self.dtype_of(point), "op": self.op(point)}

    def peers(self) -> tuple[Peer, ...]:
        return (
            torch_eager_peer("PyTorch eager: x.sum(dim=1, dtype=torch.float32) / x.amax(dim=1).float()",
                             _row_reduce_torch, "out", _op),
            # Static shapes (dynamic=False): Inductor specializes the reduction to the row length,
            # the strongest form of this peer; the recompile limit is raised when it is prepared.
            torch_compile_peer("torch.compile of the same function, static shapes (one graph per shape)",
                               _row_reduce_torch, "out", _op, dynamic=False, recompile_limit=_RECOMPILE_LIMIT),
            cupy_peer("CuPy x.sum(axis=1, dtype=float32) / x.max(axis=1)", _row_reduce_cupy, "out", _op),
        )


# --- peers -----------------------------------------------------------------------------------------
# Each solves exactly the contract's problem: one float32 per row, float32 accumulation.

#: Graphs the bench compiles: 6 shapes x 2 dtypes x 2 ops, all of one Python function, above
#: dynamo's default recompile limit (8) after which it would silently fall back to eager.
_RECOMPILE_LIMIT = 64


def _op(contract: Contract, shape: Shape, point: Point) -> tuple[str]:
    return (RowReduce.op(point),)


def _row_reduce_torch(x: Any, op: str) -> Any:
    import torch

    if op == "sum":
        return torch.sum(x, dim=1, dtype=torch.float32)
    return torch.amax(x, dim=1).float()


def _row_reduce_cupy(x: Any, op: str) -> Any:
    import cupy

    if op == "sum":
        return cupy.sum(x, axis=1, dtype=cupy.float32)
    return cupy.max(x, axis=1).astype(cupy.float32, copy=False)
