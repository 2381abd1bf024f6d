"""Contract ``layout-transpose``: the last two axes of a batch of matrices swapped (the transpose
operator, catalog/operators/transpose.yaml).

``x`` is ``batch x rows x cols`` elements of ``dtype`` (float32 or bfloat16), row-major and
contiguous; ``y`` is ``batch x cols x rows`` of the same dtype with ``y[b, j, i] = x[b, i, j]``. A
transpose moves values and computes nothing, so the float64 reference is the inputs' exact values
rearranged and the tolerance is zero: every output must equal its input bit for bit. Outputs are
poisoned (NaN) before the launch, so an element never written fails.

Inputs: values of both signs with magnitudes log-uniform over 2^-8..2^8 (base.wide_range_values),
never zero, so a swapped, duplicated or lost element shows.

Minimal traffic: x read once, y written once (GB/s against the COPY ceiling). Kernel arguments:
``(x, y, batch, rows, cols)``; a TMA realization passes tensor maps of x and y instead of the
arrays.

Peers: ``x.transpose(-1, -2).contiguous()`` in PyTorch eager and under torch.compile.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import Arrays, ArraySpec, Contract, Peer, Point, Shape, Tolerance, wide_range_values
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.peers import torch_peers


class LayoutTranspose(Contract):
    name: ClassVar[str] = "layout-transpose"
    summary: ClassVar[str] = "y[b, j, i] = x[b, i, j] for x [batch, rows, cols] row-major: exact, bit for bit."
    shape_vars: ClassVar[tuple[str, ...]] = ("batch", "rows", "cols")
    input_names: ClassVar[tuple[str, ...]] = ("x",)
    output_names: ClassVar[tuple[str, ...]] = ("y",)
    ceiling: ClassVar[str] = "copy"
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=0.0, rel_l2=0.0),
        "bfloat16": Tolerance(max_rel=0.0, rel_l2=0.0),
    }
    verify_shapes: ClassVar[tuple[Shape, ...]] = (
        {"batch": 1, "rows": 1, "cols": 1},
        {"batch": 1, "rows": 3, "cols": 31},
        {"batch": 2, "rows": 33, "cols": 65},
        {"batch": 1, "rows": 1, "cols": 4097},
        {"batch": 3, "rows": 1031, "cols": 257},
        {"batch": 1, "rows": 4097, "cols": 8191},  # odd both ways: rows start off 16-byte boundaries
        {"batch": 5, "rows": 64, "cols": 96},  # aligned rows, tiles ragged against 64
        {"batch": 1, "rows": 2048, "cols": 4104},  # aligned, ragged edge tiles, beyond L2 at fp32
        {"batch": 512, "rows": 32, "cols": 512},  # the 3-D permute: many short matrices
    )
    bench_shapes_full: ClassVar[tuple[Shape, ...]] = (
        {"batch": 1, "rows": 8192, "cols": 8192},
        {"batch": 1, "rows": 16_384, "cols": 16_384},
        {"batch": 4096, "rows": 32, "cols": 512},
        {"batch": 1, "rows": 4097, "cols": 8191},
        {"batch": 1, "rows": 8191, "cols": 4097},
    )
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = bench_shapes_full

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("x", self.dtype_of(point), shape["batch"] * shape["rows"] * shape["cols"])]

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("y", self.dtype_of(point), shape["batch"] * shape["rows"] * shape["cols"])]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        """[batch, rows, cols] of a 3-D x; a 2-D x is one matrix, a 1-D x one row."""
        x = arrays["x"]
        dims = [int(d) for d in getattr(x, "shape", (int(x.size),))]
        dims = [1] * (3 - len(dims)) + dims
        return {"batch": dims[0], "rows": dims[1], "cols": dims[2]}

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        b, r, c = shape["batch"], shape["rows"], shape["cols"]
        return {"x": from_float64(wide_range_values(rng, b * r * c, xp), dtype, xp).reshape(b, r, c)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        b, r, c = shape["batch"], shape["rows"], shape["cols"]
        x = to_float64(inputs["x"], self.dtype_of(point), xp).reshape(b, r, c)
        return {"y": xp.ascontiguousarray(xp.swapaxes(x, 1, 2))}

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        return sum(s.nbytes for s in (*self.inputs(shape, point), *self.outputs(shape, point)))

    def flops(self, shape: Shape, point: Point) -> int:
        return 0

    def peer_params(self, point: Point) -> dict[str, Any]:
        return {"dtype": self.dtype_of(point)}

    def peers(self) -> tuple[Peer, ...]:
        return torch_peers("x.transpose(-1, -2).contiguous()", _transpose_torch, "y")


def _transpose_torch(x: Any) -> Any:
    return x.transpose(-1, -2).contiguous()
