"""Contract ``row-rmsnorm``: RMS normalization of every row of a matrix (the rmsnorm operator's forward).

The contract of the rmsnorm operator's own realizations (catalog/operators/rmsnorm.yaml): ``x`` is
``rows x cols`` elements of ``dtype`` (float32 or bfloat16), row-major and contiguous; ``weight`` is
``cols`` elements of the same dtype; ``y`` has x's shape and dtype with
``y[r, j] = x[r, j] * rsqrt(mean_j(x[r, j]^2) + eps) * weight[j]``, eps = 1e-6 (a float scalar of the
contract, passed to the kernel as a float32). A realization computes in float32 and rounds once,
at the store. The reference is float64 over the inputs' exact values and float32(eps).

Inputs: per row, ``x = z * (s_r / rms(z_r))`` rounded to dtype, with z of both signs and
magnitudes log-uniform over 2^-8..2^8 (base.wide_range_values: lost elements and wrong indexing
show) and a row scale s_r log-uniform over 2^-6..2^6 (rows differ in scale by up to 2^12, so a
row normalized by another row's statistic fails); rows r % 4 == 2 have s_r = sqrt(eps), so that
mean(x^2) is about eps there and eps changes y by a factor of about 1/sqrt(2): a forgotten eps, or
one added outside the square root, fails. ``weight`` is uniform in [0.5, 1.5) (around 1, never
zero). No -inf, NaN or zero.

Minimal traffic: read x once, write y once, read weight once (``cols * sizeof(T)``, not once per
row: it stays in L2): GB/s against the COPY ceiling.

Kernel arguments: ``(x, weight, y, rows, cols, eps)``.

Tolerance (max_rel and rel_l2 over the whole y): float32 — each y carries half the relative error
of the row's sum of squares (positive terms: no cancellation; its error grows with the longest
sequential chain of additions), plus rsqrtf (2 ulp) and the two products' roundings. Replayed in
float32 (tests/contracts/test_row_rmsnorm.py): up to 6e-7 with 4 lanes per row on 4097-element
rows and 9e-6 on 100003-element rows (chains of 25000 additions, far longer than any realization's),
below 2e-7 with 8 or more lanes per row. 2e-5 keeps a margin of 2 over that pessimistic order,
100 over block-wide ones, and fails a lost element of above-average square in rows of up to about
2.5e4 elements. bfloat16 — the float32 y rounded once to bfloat16: up to 2^-8 of the largest
output; 2^-7 (as row-softmax) leaves a factor 2. A poisoned (unwritten) output is NaN and fails.

Peers: torch.nn.functional.rms_norm(x, (cols,), weight, eps) eager and torch.compile of the same
call (static shapes), in the input dtype. PyTorch's composite rms_norm rounds x * rstd to the input
dtype before multiplying by the weight (a fused kernel may round once): two bfloat16 roundings, up
to 2^-7 + 2^-16 of an element, so the bfloat16 peers are held to 2^-6; float32 peers to the
contract's tolerance.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import (
    Arrays,
    Contract,
    Peer,
    Point,
    Shape,
    Tolerance,
    uniform01,
    wide_range_values,
)
from epldb.contracts.dtypes import from_float64
from epldb.contracts.peers import bfloat16_loosened, liger_peer, quack_peer, torch_peers
from epldb.contracts.rows import RowMapContract

#: log2 range of the row scales s_r.
ROW_SCALE_LOG2 = 6.0


def eps_rows(rows: int, xp: Any = np) -> Any:
    """Rows whose statistic is scaled to eps (mean square for rmsnorm, variance for layernorm)."""
    return xp.arange(rows) % 4 == 2


def gains(rng: Any, count: int, dtype: str, xp: Any = np) -> Any:
    """A norm's weight: ``count`` values uniform in [0.5, 1.5) (around 1, never zero), as dtype."""
    return from_float64(0.5 + uniform01(rng, count), dtype, xp)


def eps_arg(contract: Contract, shape: Shape, point: Point) -> tuple[float]:
    """The norm peers' argument after their input tensors: the contract's eps."""
    return (contract.scalar("eps"),)


def rmsnorm_float64(x: Any, weight: Any, eps: float, xp: Any = np) -> Any:
    """x * rsqrt(mean(x^2) + eps) * weight per row of float64 x [rows, cols], weight [cols]."""
    return x / xp.sqrt((x * x).mean(axis=1) + eps)[:, None] * weight[None, :]


class RowRmsNorm(RowMapContract):
    name: ClassVar[str] = "row-rmsnorm"
    summary: ClassVar[str] = (
        "Per row of a row-major [rows, cols] matrix: y = x * rsqrt(mean(x^2) + eps) * weight in the "
        "input dtype (eps 1e-6)."
    )
    input_names: ClassVar[tuple[str, ...]] = ("x", "weight")
    scalar_args: ClassVar[dict[str, float]] = {"eps": 1e-6}
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=2e-5, rel_l2=2e-5),
        "bfloat16": Tolerance(max_rel=2.0**-7, rel_l2=2.0**-7),
    }

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        rows, cols = shape["rows"], shape["cols"]
        z = wide_range_values(rng, rows * cols, xp).reshape(rows, cols)
        scale = xp.exp2((2.0 * uniform01(rng, rows) - 1.0) * ROW_SCALE_LOG2)
        scale = xp.where(eps_rows(rows, xp), math.sqrt(self.scalar("eps")), scale)
        values = z * (scale / xp.sqrt((z * z).mean(axis=1)))[:, None]
        return {"x": from_float64(values, dtype, xp).reshape(rows, cols), "weight": gains(rng, cols, dtype, xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        v = self.exact_inputs(inputs, shape, point, xp)
        return {"y": rmsnorm_float64(v["x"], v["weight"], self.scalar("eps"), xp)}

    def flops(self, shape: Shape, point: Point) -> int:
        # Per element: square, add; then multiply by rstd and by the weight.
        return 4 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        note = "bf16: held to 2^-6, x * rstd may be rounded before the weight"
        loose = bfloat16_loosened(self.tolerance, 2.0**-6)
        return (*torch_peers("torch.nn.functional.rms_norm(x, (cols,), weight, eps) in the input dtype",
                             _rms_norm_torch, "y", eps_arg, note=note, tolerance=loose),
                liger_peer("liger_rms_norm(x, weight, eps), Llama casting (x * rstd rounded, then the weight)",
                           _rms_norm_liger, "y", eps_arg, note=note, tolerance=loose),
                quack_peer("quack.rmsnorm(x, weight, eps=eps)", _rms_norm_quack, "y", eps_arg, note=note,
                           tolerance=loose))


def _rms_norm_torch(x: Any, weight: Any, eps: float) -> Any:
    import torch

    return torch.nn.functional.rms_norm(x, (x.shape[1],), weight, eps)


def _rms_norm_liger(x: Any, weight: Any, eps: float) -> Any:
    from liger_kernel.transformers.functional import liger_rms_norm

    return liger_rms_norm(x, weight, eps)


def _rms_norm_quack(x: Any, weight: Any, eps: float) -> Any:
    import quack

    return quack.rmsnorm(x, weight, eps=eps)
