"""Contract ``row-layernorm``: layer normalization of every row of a matrix (the layernorm operator's forward).

The contract of the layernorm operator's own realizations (catalog/operators/layernorm.yaml): ``x``
is ``rows x cols`` elements of ``dtype`` (float32 or bfloat16), row-major and contiguous; ``weight``
and ``bias`` are ``cols`` elements of the same dtype; ``y`` has x's shape and dtype with
``y[r, j] = (x[r, j] - mean_r) * rsqrt(var_r + eps) * weight[j] + bias[j]``, ``var_r`` the biased
(population, divisor cols) variance of the row, eps = 1e-5 (a float scalar of the contract, passed
to the kernel as a float32). A realization computes in float32 and rounds once, at the store. The
reference is float64 over the inputs' exact values and float32(eps) (a two-pass mean and variance:
no cancellation in float64 at these condition numbers).

Inputs expose the cancellation of the statistics on purpose: x is row-moments' (epldb/contracts/
row_moments.py), ``offset_r + std_r * z`` with std_r in [1, 2), z uniform of unit variance and
|offset_r| log-uniform over [1e3, 1e4) in float32 (condition kappa = |mean| / std up to 1e4, so the
(sum x, sum x^2) form returns noise) and over [16, 64) in bfloat16 (the most a bfloat16 row can
carry and still vary). Rows r % 4 == 2 are scaled (before rounding, kappa unchanged) to a standard
deviation of sqrt(eps): there var + eps is 2 var, so a forgotten eps, or one added to the standard
deviation instead, fails. Rows r % 8 == 5 are constant (every element the row's first, rounded):
there the mean is exact, the variance 0 and y the bias, which a realization must return bit for
bit (``exact_outputs``; torch does), as on rows of one element. ``weight`` is uniform in [0.5, 1.5) (around 1, never zero), ``bias`` of
either sign with magnitude uniform in [0.5, 1.5). Output scale: |x_hat| is at most about sqrt(3),
so |y| is below about 4.1.

Minimal traffic: read x once, write y once, read weight and bias once each (``cols * sizeof(T)``,
not once per row): GB/s against the COPY ceiling.

Kernel arguments: ``(x, weight, bias, y, rows, cols, eps)``.

Tolerance (max_rel and rel_l2 over the whole y): float32 — every realization that holds the row's
mean as a float32 value has it off by at least half an ulp of |mean| (4.9e-4 at |mean| near 1e4:
u * kappa in units of the row's std), however it computed it, and that error reaches y times
|weight| < 1.5 through x - mean; the summation adds a few ulps more, and the variance an error
growing like u * kappa (Welford/Chan merges) or u * kappa^2 (sum of squares). Replayed in float32
(tests/contracts/test_row_layernorm.py, rows of 8 to 100003 elements, 8 to 1024 lanes): two-pass
up to 4.3e-4, chunked Chan up to 3.7e-4, a shifted Welford (row's first element subtracted first)
1.7e-4, the (sum, sum of squares) form 3.5e2 to 4e2 (var is noise, often clamped to 0, and
rsqrt(eps) blows y up). 2e-3
keeps a margin of 4.6 over the accurate orders, and the cancelling one FAILS by five orders of
magnitude: this contract reports the error of every statistics realization composed into
layernorm, and passes only those without cancellation. bfloat16 — kappa is at most 64, so the
statistics' error stays near 1e-4 even for the cancelling form (replayed before the final
rounding: two-pass 7e-7, sum of squares 8e-5 to 1.2e-4), far under the bfloat16 rounding of y (up
to 2^-8 of the largest output): 2^-7 (as row-softmax) leaves a factor 2, and the cancelling form
passes in bfloat16 (its error is reported, not failed). What these inputs cannot
show: a lost element moves the mean by about std / cols, caught in float32 only in rows of up to a
few hundred elements; wrong rows, a wrong weight or bias index, eps misuse and unwritten outputs
(NaN) are caught at every shape.

Peers: torch.nn.functional.layer_norm(x, (cols,), weight, bias, eps) eager and torch.compile of
the same call (static shapes), in the input dtype (statistics in float32; Welford without a shift,
so their float32 error is of the Chan order's size).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import Arrays, Peer, Point, Shape, Tolerance, uniform01
from epldb.contracts.dtypes import from_float64
from epldb.contracts.peers import liger_peer, quack_peer, torch_peers
from epldb.contracts.row_moments import mean_dominated_values
from epldb.contracts.row_rmsnorm import eps_arg, eps_rows, gains
from epldb.contracts.rows import RowMapContract


def layernorm_float64(x: Any, weight: Any, bias: Any, eps: float, xp: Any = np) -> Any:
    """(x - mean) * rsqrt(var + eps) * weight + bias per row of float64 x [rows, cols] (two-pass
    mean and population variance), weight and bias [cols]."""
    mean = x.mean(axis=1)
    d = x - mean[:, None]
    var = (d * d).mean(axis=1)
    return d / xp.sqrt(var + eps)[:, None] * weight[None, :] + bias[None, :]


def constant_rows(rows: int, xp: Any = np) -> Any:
    """The degenerate rows of the inputs: r % 8 == 5, every element equal to the row's first (odd
    rows, so never the eps-scaled rows r % 4 == 2)."""
    return xp.arange(rows) % 8 == 5


class RowLayerNorm(RowMapContract):
    name: ClassVar[str] = "row-layernorm"
    summary: ClassVar[str] = (
        "Per row of a row-major [rows, cols] matrix with mean >> std: y = (x - mean) * rsqrt(var + eps) * "
        "weight + bias in the input dtype (population variance, eps 1e-5)."
    )
    input_names: ClassVar[tuple[str, ...]] = ("x", "weight", "bias")
    scalar_args: ClassVar[dict[str, float]] = {"eps": 1e-5}
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=2e-3, rel_l2=2e-3),
        "bfloat16": Tolerance(max_rel=2.0**-7, rel_l2=2.0**-7),
    }
    exact_names: ClassVar[tuple[str, ...]] = ("y",)  # constant rows: x - mean = 0, y = bias bit for bit

    def exact_rows(self, shape: Shape, point: Point, xp: Any = np) -> Any:
        """Constant rows (``constant_rows``) and, when a row is one element, every row: there the
        mean is the value, the variance 0 and y the bias exactly (torch: the same)."""
        return constant_rows(shape["rows"], xp) | (shape["cols"] == 1)

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        rows, cols = shape["rows"], shape["cols"]
        values = mean_dominated_values(shape, dtype, rng, xp)
        values = xp.where(constant_rows(rows, xp)[:, None], values[:, :1], values)  # every element its row's first
        std = values.std(axis=1)
        to_eps = eps_rows(rows, xp) & (std > 0)  # a one-column row has no spread to scale
        scale = xp.where(to_eps, math.sqrt(self.scalar("eps")) / xp.where(std > 0, std, 1.0), 1.0)
        sign = xp.where(uniform01(rng, cols) < 0.5, -1.0, 1.0)
        bias = from_float64(sign * (0.5 + uniform01(rng, cols)), dtype, xp)
        return {"x": from_float64(values * scale[:, None], dtype, xp).reshape(rows, cols),
                "weight": gains(rng, cols, dtype, xp), "bias": bias}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        v = self.exact_inputs(inputs, shape, point, xp)
        return {"y": layernorm_float64(v["x"], v["weight"], v["bias"], self.scalar("eps"), xp)}

    def flops(self, shape: Shape, point: Point) -> int:
        # Per element: the statistics (add; subtract, multiply-add) and the normalization
        # (subtract, multiply by rstd, multiply by the weight, add the bias).
        return 7 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        return (*torch_peers("torch.nn.functional.layer_norm(x, (cols,), weight, bias, eps) in the input dtype",
                             _layer_norm_torch, "y", eps_arg),
                liger_peer("liger_layer_norm(x, weight, bias, eps)", _layer_norm_liger, "y", eps_arg),
                quack_peer("quack.rmsnorm.layernorm_fwd(x, weight, bias, eps=eps), weight and bias widened to "
                           "float32 as it requires (exact)", _layer_norm_quack, "y", eps_arg))


def _layer_norm_torch(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    import torch

    return torch.nn.functional.layer_norm(x, (x.shape[1],), weight, bias, eps)


def _layer_norm_liger(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    from liger_kernel.transformers.functional import liger_layer_norm

    return liger_layer_norm(x, weight, bias, eps)


def _layer_norm_quack(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    from quack.rmsnorm import layernorm_fwd

    return layernorm_fwd(x, weight.float(), bias.float(), eps=eps)
