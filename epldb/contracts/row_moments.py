"""Contract ``row-moments``: mean and population variance of every row, on inputs with mean >> std.

The contract of mergeable-statistics (kernels/include/epl/body/moments.cuh, epl/thread/welford.cuh):
``x`` is ``rows x cols`` elements of ``dtype`` (float32 or bfloat16), row-major and contiguous;
``mean[r]`` is the mean of ``x[r, :]`` and ``var[r]`` its population variance (divisor ``cols``),
both stored as float32. The reference is float64 over the inputs' exact values (a two-pass mean
then mean of squared deviations: no cancellation in float64 at these condition numbers).

Inputs expose catastrophic cancellation on purpose. Every row is a large offset plus a spread of
about 1: ``x = offset_r + std_r * z`` with ``std_r`` uniform in [1, 2), ``z`` uniform with unit
variance, and ``|offset_r|`` log-uniform, random sign:

* float32: ``|offset|`` in [1e3, 1e4): condition ``kappa = |mean| / std`` up to 1e4, so
  ``mean^2 / var`` reaches 1e8 > 2^24 and the (sum x, sum x^2) form returns noise;
* bfloat16: ``|offset|`` in [16, 64): bfloat16 keeps 8 significant bits, so a spread of 1 still
  spans 2 to 16 representable steps only while ``|x| < 128`` — ``kappa`` is at most 64 here, the
  most a bfloat16 row can carry and still vary.

Values are never zero (``|offset| > sqrt(3) * std``).

Tolerance follows the condition number: an algorithm whose float32 error grows linearly in kappa
(Welford/Chan; torch.var_mean) stays under about ``2 * 2^-24 * kappa_max``; two-pass and the
shifted Welford stay near ``2^-24`` whatever kappa is; the (sum, sum of squares) form grows like
``2^-24 * kappa^2`` and fails. float32: 1e-3 (about 2 u kappa_max with kappa_max = 1e4); bfloat16:
1e-5 (about 2 u kappa_max with kappa_max = 64). The error is normwise per output (the verifier's
max |out - ref| / max |ref|): relative to the largest |mean| for ``mean`` and to the largest
variance (1 to 4 for every row) for ``var``. Simulated in NumPy float32 with the realizations'
orders (tests/contracts/test_row_moments.py replays two of them): two-pass ~3e-7; chunked Welford
without shift up to ~2e-4 (short rows, where every merge is between thread states whose means
carry an ulp of 1e4) in float32 and ~1e-7 in bfloat16; the naive form 0.4 to 7 (float32) and
1.3e-5 to 8e-5 (bfloat16, rows of 256 or more; exact on 8-element rows): it is expected to FAIL
verification, which is its record's lesson.

What these inputs cannot show: a lost element moves the mean by about std / cols, far under the
mean's tolerance, and the variance by about 0.7 / cols, so a single lost element is caught in the
variance only for rows up to about 700 (float32) or 70000 (bfloat16) elements; lost vectors,
wrong rows, unwritten outputs (poison, canaries) and any wrong offset are caught at every shape.
The row-reduce contract's wide-range inputs cover lost elements of the shared load loop
(epl/group/visit.cuh follows epl/group/fold.cuh's access pattern).

Minimal traffic: read ``rows * cols * sizeof(T)`` bytes once, write ``8 * rows`` bytes. Work: about
3 flops per element (add, subtract, multiply-add), so every realization is memory-bound and the
figure of merit is GB/s against the read ceiling (H200 here: about 4540 GB/s).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import (
    Arrays,
    Contract,
    Peer,
    PeerCall,
    Point,
    Shape,
    Tolerance,
    uniform01,
)
from epldb.contracts.dtypes import from_float64
from epldb.contracts.peers import as_torch
from epldb.contracts.rows import RowContract

#: log10 range of |offset| per dtype (log-uniform), and the std range [1, 2) shared by both.
OFFSET_LOG10: dict[str, tuple[float, float]] = {
    "float32": (3.0, 4.0),
    "bfloat16": (math.log10(16.0), math.log10(64.0)),
}


def mean_dominated_values(shape: Shape, dtype: str, rng: Any, xp: Any = np) -> Any:
    """float64 [rows, cols] values ``offset_r + std_r * z`` (see the module docstring), before
    rounding to ``dtype``; the layernorm contract (row-layernorm) draws its x from here too."""
    rows, cols = shape["rows"], shape["cols"]
    lo, hi = OFFSET_LOG10[dtype]
    sign = xp.where(uniform01(rng, rows) < 0.5, -1.0, 1.0)
    offset = sign * xp.power(10.0, lo + (hi - lo) * uniform01(rng, rows))
    std = 1.0 + uniform01(rng, rows)
    z = (2.0 * uniform01(rng, rows * cols) - 1.0) * math.sqrt(3.0)  # uniform, unit variance
    return offset[:, None] + std[:, None] * z.reshape(rows, cols)


class RowMoments(RowContract):
    name: ClassVar[str] = "row-moments"
    summary: ClassVar[str] = (
        "Mean and population variance (float32) of each row of a row-major [rows, cols] matrix whose rows have mean >> std."
    )
    output_names: ClassVar[tuple[str, ...]] = ("mean", "var")
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        {"rows": 262_144, "cols": 256},
        {"rows": 4096, "cols": 16_384},
        {"rows": 128, "cols": 262_144},
    )
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=1e-3, rel_l2=1e-3),
        "bfloat16": Tolerance(max_rel=1e-5, rel_l2=1e-5),
    }

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        values = mean_dominated_values(shape, dtype, rng, xp)
        return {"x": from_float64(values.ravel(), dtype, xp).reshape(shape["rows"], shape["cols"])}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = self.exact_inputs(inputs, shape, point, xp)["x"]
        mean = x.mean(axis=1)
        var = ((x - mean[:, None]) ** 2).mean(axis=1)
        return {"mean": mean, "var": var}

    def flops(self, shape: Shape, point: Point) -> int:
        return 3 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        return (
            Peer("torch-eager", "PyTorch eager: torch.var_mean(x, dim=1, correction=0) (bf16: on x.float(), "
                 "the conversion is part of the peer's cost)", _torch_eager),
            Peer("torch-compile", "torch.compile of the same function, static shapes (bf16: the upcast fuses "
                 "into the reduction)", _torch_compile),
            Peer("cupy", "CuPy x.mean(axis=1), x.var(axis=1) (float32 only; two reductions)", _cupy_peer),
        )


# --- peers -----------------------------------------------------------------------------------------
# Each solves the contract's problem: float32 mean and population variance per row. Two outputs,
# so the peers are written here rather than through a one-output helper.


def _var_mean_torch(x: Any) -> tuple[Any, Any]:
    import torch

    var, mean = torch.var_mean(x.float(), dim=1, correction=0)  # .float() is a no-op for float32
    return mean, var


def _torch_eager(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
    try:
        import cupy
        import torch  # noqa: F401
    except ImportError as e:
        return f"not installed: {e.name}"
    dtype = contract.dtype_of(point)

    def call(inputs: Arrays) -> dict[str, Any]:
        mean, var = _var_mean_torch(as_torch(inputs["x"], dtype))
        return {"mean": cupy.from_dlpack(mean), "var": cupy.from_dlpack(var)}

    return call


_COMPILED: dict[tuple[str, int, int], Any] = {}
#: Graphs the bench compiles: 6 shapes x 2 dtypes of one Python function, above dynamo's default
#: recompile limit (8) after which it would silently fall back to eager.
_RECOMPILE_LIMIT = 64


def _torch_compile(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
    try:
        import cupy
        import torch
    except ImportError as e:
        return f"not installed: {e.name}"
    dtype = contract.dtype_of(point)
    key = (dtype, shape["rows"], shape["cols"])
    if key not in _COMPILED:
        # Static shapes; the recompile limit is raised here, when a bench asks, never at import.
        for name in ("recompile_limit", "cache_size_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, max(getattr(torch._dynamo.config, name), _RECOMPILE_LIMIT))
        _COMPILED[key] = torch.compile(_var_mean_torch, dynamic=False)
    fn = _COMPILED[key]

    def call(inputs: Arrays) -> dict[str, Any]:
        mean, var = fn(as_torch(inputs["x"], dtype))
        return {"mean": cupy.from_dlpack(mean), "var": cupy.from_dlpack(var)}

    return call


def _cupy_peer(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
    try:
        import cupy
    except ImportError as e:
        return f"not installed: {e.name}"
    if contract.dtype_of(point) == "bfloat16":
        return "CuPy has no bfloat16 arithmetic"

    def call(inputs: Arrays) -> dict[str, Any]:
        x = inputs["x"]
        return {"mean": cupy.mean(x, axis=1), "var": cupy.var(x, axis=1)}

    return call
