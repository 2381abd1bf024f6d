"""The row-layernorm contract on the CPU: inputs (row-moments' mean >> std rows, rows at variance
eps, weight and bias), the float64 reference against the formula, and a tolerance replayed with
the statistics realizations' float32 orders: it passes two-pass and Chan, fails the (sum, sum of
squares) form in float32 (not in bfloat16, whose rounding of y is larger than its error), and
fails eps misuse, wrong rows and a wrong weight or bias index."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import F, rsqrt, sum_sumsq, two_pass, welford

from epldb.contracts import get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.row_layernorm import constant_rows, layernorm_float64
from epldb.contracts.row_rmsnorm import eps_rows
from epldb.verify import error_figures

C = get_contract("row-layernorm")
EPS = C.scalar("eps")


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def _as_float64(inputs: dict, dtype: str) -> tuple[np.ndarray, ...]:
    return tuple(to_float64(inputs[n], dtype) for n in ("x", "weight", "bias"))


@pytest.mark.parametrize("dtype, kappa_lo, kappa_hi", [("float32", 400.0, 1e4), ("bfloat16", 7.0, 70.0)])
def test_inputs_are_row_moments_rows_some_at_variance_eps(dtype: str, kappa_lo: float, kappa_hi: float) -> None:
    shape = {"rows": 64, "cols": 1031}
    inputs = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))
    x, w, b = _as_float64(inputs, dtype)
    moments_x = get_contract("row-moments").make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    at_eps = eps_rows(64)
    constant = constant_rows(64)
    kept = ~at_eps & ~constant
    assert np.array_equal(inputs["x"][kept], moments_x[kept])  # the same draws, unscaled rows kept
    assert np.array_equal(inputs["x"][constant], np.repeat(moments_x[constant][:, :1], 1031, axis=1))
    assert np.all(np.isfinite(x)) and np.all(x != 0)
    varied = ~constant
    kappa = np.abs(x[varied].mean(axis=1)) / x[varied].std(axis=1)
    assert kappa.min() > kappa_lo and kappa.max() < kappa_hi  # scaling keeps the condition number
    np.testing.assert_allclose(x[at_eps].var(axis=1), EPS, rtol=0.5)  # var + eps is about 2 var there
    assert np.all(x[kept].std(axis=1) > 0.9)
    assert np.all((w >= 0.5) & (w <= 1.5))
    assert np.all((np.abs(b) >= 0.5) & (np.abs(b) <= 1.5)) and 0.3 < np.mean(b > 0) < 0.7


def test_reference_on_tiny_inputs() -> None:
    x = np.array([[1000.0, 1002.0, 1004.0]], np.float32)  # mean 1002, variance 8/3
    w = np.array([1.0, 2.0, 0.5], np.float32)
    b = np.array([0.5, -1.0, 1.0], np.float32)
    y = C.reference({"x": x, "weight": w, "bias": b}, {"rows": 1, "cols": 3}, point())["y"]
    r = 1 / math.sqrt(8 / 3 + EPS)
    np.testing.assert_allclose(y[0], [-2 * r + 0.5, -1.0, 2 * r * 0.5 + 1.0], rtol=1e-15)


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_is_the_float64_formula_per_row(shape: dict) -> None:
    inputs = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))
    y = C.reference(inputs, shape, point())["y"]
    x, w, b = _as_float64(inputs, "float32")
    for r, row in enumerate(x):
        mean = math.fsum(row) / row.size
        var = math.fsum((row - mean) ** 2) / row.size
        np.testing.assert_allclose(y[r], (row - mean) / math.sqrt(var + EPS) * w + b, rtol=1e-12, atol=1e-12)
    if shape["cols"] == 1:
        assert y.tolist() == [[float(b[0])]]  # no spread: y is the bias


def _float32_layernorm(x: np.ndarray, stats: tuple[np.ndarray, np.ndarray], w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """y from float32 (mean, var) as a kernel applies them: (x - mean) * rsqrt(var + eps), then
    times w plus b (an fma rounds once; this rounds twice, as close)."""
    mean, var = stats
    rstd = rsqrt((var + F(EPS)).astype(F))
    xhat = ((x - mean[:, None]).astype(F) * rstd[:, None]).astype(F)
    return (xhat * w.astype(F) + b.astype(F)).astype(F)


# The realizations' orders; every one pivots on the row's first element (constant rows exact).
ORDERS = {
    "two-pass": lambda x, lanes: two_pass(x, lanes, shift=True),
    "chan": lambda x, lanes: welford(x, lanes, 8, shift=True),
    "chan-per-thread": lambda x, lanes: welford(x, lanes, 1 << 20, shift=True),
}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("shape, lanes", [
    ({"rows": 33, "cols": 8}, 8),
    ({"rows": 1031, "cols": 257}, 64),
    ({"rows": 5, "cols": 100_003}, 1024),
])
def test_tolerance_passes_the_accurate_statistics_and_fails_the_cancelling_one_in_float32(
        dtype: str, shape: dict, lanes: int) -> None:
    tol = C.tolerance_for(point(dtype))
    inputs = C.make_inputs(shape, dtype, point(dtype), make_rng(np, shape["cols"]))
    ref = C.reference(inputs, shape, point(dtype))["y"]
    x, w, b = _as_float64(inputs, dtype)
    xf = x.astype(F)

    def error(stats: tuple[np.ndarray, np.ndarray]) -> float:
        y = to_float64(from_float64(_float32_layernorm(xf, stats, w, b).astype(np.float64), dtype), dtype)
        fig = error_figures(y, ref)
        return math.inf if fig.nan else max(fig.max_rel, fig.rel_l2)

    # float32: margin 3 or more; bfloat16: y's own rounding takes up to half the tolerance (2^-8).
    margin = 3.0 if dtype == "float32" else 1.9
    for name, order in ORDERS.items():
        assert error(order(xf, lanes)) < tol.max_rel / margin, name
    cancelling = error(sum_sumsq(xf, lanes))
    if dtype == "float32":
        assert cancelling > 1000 * tol.max_rel  # variance is noise: the cautionary realization fails
    else:
        assert cancelling < tol.max_rel / margin  # kappa <= 64: the bf16 rounding of y dominates


def test_tolerance_fails_eps_misuse_wrong_rows_and_wrong_columns() -> None:
    shape = {"rows": 12, "cols": 1031}
    tol = C.tolerance_for(point())
    x, w, b = _as_float64(C.make_inputs(shape, "float32", point(), make_rng(np, 3)), "float32")
    ref = layernorm_float64(x, w, b, EPS)
    mean, std = x.mean(axis=1, keepdims=True), x.std(axis=1, keepdims=True)
    wrongs = {
        "eps forgotten": layernorm_float64(x, w, b, 0.0),
        "eps added to the standard deviation": (x - mean) / (std + EPS) * w + b,
        "row statistics one row off": (x - np.roll(mean, 1, axis=0)) / np.roll(std, 1, axis=0) * w + b,
        "weight read one column off": layernorm_float64(x, np.roll(w, 1), b, EPS),
        "bias read one column off": layernorm_float64(x, w, np.roll(b, 1), EPS),
    }
    for what, wrong in wrongs.items():
        assert error_figures(wrong, ref).max_rel > tol.max_rel, what
