"""What every row-wise contract shares: a row-major [rows, cols] input ``x`` and one float32 value
per row for each output, the same odd and large verification shapes, and the issue's row shapes
for timing. Subclasses say what the per-row outputs are (reference, inputs, tolerance, peers)."""

from __future__ import annotations

from typing import ClassVar

from epldb.contracts.base import Arrays, ArraySpec, Contract, Point, Shape
from epldb.contracts.dtypes import itemsize


class RowContract(Contract):
    """Base of contracts over the rows of a row-major matrix (row-reduce, row-moments, ...)."""

    shape_vars: ClassVar[tuple[str, ...]] = ("rows", "cols")
    input_names: ClassVar[tuple[str, ...]] = ("x",)
    verify_shapes: ClassVar[tuple[Shape, ...]] = (
        {"rows": 1, "cols": 1},
        {"rows": 3, "cols": 31},
        {"rows": 7, "cols": 4097},
        {"rows": 1031, "cols": 257},
        {"rows": 5, "cols": 100_003},
        {"rows": 33, "cols": 8},  # one 16-byte vector per bf16 row, two per fp32 row
        {"rows": 1029, "cols": 1032},  # aligned rows, vectors ragged against every lane count
        {"rows": 997, "cols": 65_544},  # large (65 M elements, beyond L2), aligned, ragged slices
    )
    #: From very short rows (more rows than any grid) to rows longer than a block can hold in
    #: registers, with fewer rows than the H200 has SMs.
    bench_shapes_full: ClassVar[tuple[Shape, ...]] = (
        {"rows": 262_144, "cols": 256},
        {"rows": 32_768, "cols": 1024},
        {"rows": 16_384, "cols": 4096},
        {"rows": 4096, "cols": 16_384},
        {"rows": 1024, "cols": 65_536},
        {"rows": 128, "cols": 262_144},
    )

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("x", self.dtype_of(point), shape["rows"] * shape["cols"])]

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        """One float32 per row for each output name."""
        return [ArraySpec(name, "float32", shape["rows"]) for name in self.output_names]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        """Rows and columns of ``x``: a 2-D array's shape; a 1-D array is one row."""
        x = arrays["x"]
        if getattr(x, "ndim", 1) == 2:
            return {"rows": int(x.shape[0]), "cols": int(x.shape[1])}
        return {"rows": 1, "cols": int(x.size)}

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        """The matrix read once, each per-row output written once."""
        rows, cols = shape["rows"], shape["cols"]
        return rows * cols * itemsize(self.dtype_of(point)) + 4 * rows * len(self.output_names)
