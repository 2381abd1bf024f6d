"""What every row-wise contract shares: a row-major [rows, cols] input ``x`` (and, for some, per-column
vectors of its dtype such as a norm's weight), one float32 value per row for each output (or, for
``RowMapContract``, an output matrix like x), the same odd and large verification shapes, the
issue's row shapes for timing, the minimal traffic (every input read once, every output written
once) and the peers' problem key (the dtype). Subclasses say what the outputs are (reference,
inputs, tolerance, peers)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import Arrays, ArraySpec, Contract, Point, Shape
from epldb.contracts.dtypes import FLOAT_DTYPES, to_float64


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
    #: The ends and the middle of the full set (``bench --quick``).
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        {"rows": 262_144, "cols": 256},
        {"rows": 16_384, "cols": 4096},
        {"rows": 128, "cols": 262_144},
    )
    #: Off the full set's line of 2^25-2^26 elements (``bench --sweep``): rows that are not 16-byte
    #: aligned (vocabulary sizes 32001, 50257 and 100003, 4097, 5003), lengths that are not powers of
    #: two (hidden sizes 768, 1536, 12288), few rows of long and of middling length, many rows of
    #: short ones, and the octaves between the full set's lengths (512, 2 Ki, 8 Ki, 32 Ki, 128 Ki):
    #: the winner among the row operators' realizations changes within two octaves, so evidence
    #: spaced wider leaves select guessing (docs/SELECT.md).
    sweep_shapes: ClassVar[tuple[Shape, ...]] = (
        {"rows": 8192, "cols": 32_001},
        {"rows": 2048, "cols": 50_257},
        {"rows": 4096, "cols": 4097},
        {"rows": 4096, "cols": 5000},
        {"rows": 32_768, "cols": 768},
        {"rows": 16, "cols": 131_072},
        {"rows": 64, "cols": 16_384},
        {"rows": 1_048_576, "cols": 64},
        {"rows": 3000, "cols": 5003},
        {"rows": 2048, "cols": 100_003},
        {"rows": 65_536, "cols": 512},
        {"rows": 16_384, "cols": 1536},
        {"rows": 8192, "cols": 2048},
        {"rows": 2048, "cols": 8192},
        {"rows": 1024, "cols": 12_288},
        {"rows": 512, "cols": 32_768},
        {"rows": 256, "cols": 131_072},
    )

    #: Outputs that are exact on the rows ``exact_rows`` names (rows of one element, by default):
    #: softmax 1, log-softmax 0, logsumexp x, a norm's y its bias. Empty: none are.
    exact_names: ClassVar[tuple[str, ...]] = ()

    def exact_rows(self, shape: Shape, point: Point, xp: Any = np) -> Any:
        """The rows whose ``exact_names`` outputs are exact: all of them when a row is one element."""
        return xp.full(shape["rows"], shape["cols"] == 1, dtype=bool)

    def exact_outputs(self, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        """Each ``exact_names`` output over the ``exact_rows``: one value a row, or a whole row of
        a row map (an output of ``rows * k`` elements, k per row)."""
        rows = self.exact_rows(shape, point, xp)
        if not self.exact_names or not bool(rows.any()):
            return {}
        per_row = {s.name: s.count // max(shape["rows"], 1) for s in self.outputs(shape, point)}
        return {name: xp.repeat(rows, per_row[name]) for name in self.exact_names}

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [self.input_spec(name, shape, point) for name in self.input_names]

    def input_spec(self, name: str, shape: Shape, point: Point) -> ArraySpec:
        """``x`` is the matrix; any other input is a per-column vector of x's dtype (a norm's
        weight or bias). A contract with another kind of input overrides this."""
        count = shape["rows"] * shape["cols"] if name == "x" else shape["cols"]
        return ArraySpec(name, self.dtype_of(point), count)

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        """One float32 per row for each output name."""
        return [ArraySpec(name, "float32", shape["rows"]) for name in self.output_names]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        """Rows and columns of ``x``: a 2-D array's shape; a 1-D array is one row."""
        x = arrays["x"]
        if getattr(x, "ndim", 1) == 2:
            return {"rows": int(x.shape[0]), "cols": int(x.shape[1])}
        return {"rows": 1, "cols": int(x.size)}

    def exact_inputs(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        """The inputs' exact values for a float64 reference: x as [rows, cols], other float inputs
        widened as they are, integer inputs (a target) untouched."""
        out = {s.name: to_float64(inputs[s.name], s.dtype, xp) if s.dtype in FLOAT_DTYPES else inputs[s.name]
               for s in self.inputs(shape, point)}
        out["x"] = out["x"].reshape(shape["rows"], shape["cols"])
        return out

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        """Every input read once (the matrix, and a per-column vector once, not once per row),
        every output written once."""
        return sum(s.nbytes for s in (*self.inputs(shape, point), *self.outputs(shape, point)))

    def peer_params(self, point: Point) -> dict[str, Any]:
        """Peers solve the same problem whatever the realization's parameters: only the dtype."""
        return {"dtype": self.dtype_of(point)}


class RowMapContract(RowContract):
    """Rows in, rows out: ``y`` has x's shape and dtype (softmax, log-softmax, the norms), so a
    realization writes as many bytes as it reads and is a fraction of the COPY ceiling."""

    output_names: ClassVar[tuple[str, ...]] = ("y",)
    ceiling: ClassVar[str] = "copy"

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        """y: rows * cols elements of the input dtype."""
        return [ArraySpec("y", self.dtype_of(point), shape["rows"] * shape["cols"])]
