"""The row-rmsnorm contract on the CPU: inputs (wide range, rows of very different scales, rows
where eps matters, weights around 1), the float64 reference against the formula, and a tolerance
that holds for a float32 computation in a realization's order and fails a forgotten eps, a wrong
row, a wrong weight index and a lost element."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import F, row_sum, rsqrt

from epldb.contracts import get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.row_rmsnorm import eps_rows, rmsnorm_float64
from epldb.verify import error_figures

C = get_contract("row-rmsnorm")
EPS = C.scalar("eps")


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def _as_float64(inputs: dict, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    return to_float64(inputs["x"], dtype), to_float64(inputs["weight"], dtype)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inputs_wide_range_rows_of_many_scales_rows_at_eps_weights_around_one(dtype: str) -> None:
    shape = {"rows": 41, "cols": 1031}
    x, w = _as_float64(C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1)), dtype)
    assert np.all(np.isfinite(x)) and np.all(x != 0) and 0.2 < np.mean(x > 0) < 0.8
    assert np.all((w >= 0.5) & (w <= 1.5)) and len(np.unique(w)) > 50
    ms = (x * x).mean(axis=1)
    at_eps = eps_rows(41)
    np.testing.assert_allclose(ms[at_eps], EPS, rtol=0.02)  # bf16 rounding of x moves it a little
    rms = np.sqrt(ms[~at_eps])
    assert rms.min() >= 2.0**-6 * 0.98 and rms.max() <= 2.0**6 * 1.02 and rms.max() / rms.min() > 2.0**8
    spread = np.abs(x[0]).max() / np.abs(x[0]).min()
    assert spread > 2.0**12  # a wide dynamic range within a row


def test_reference_on_tiny_inputs() -> None:
    x = np.array([[3.0, 4.0], [1e-3, -1e-3]], np.float32)
    w = np.array([1.0, 2.0], np.float32)
    y = C.reference({"x": x, "weight": w}, {"rows": 2, "cols": 2}, point())["y"]
    x64 = x.astype(np.float64)
    r0 = 1 / math.sqrt(12.5 + EPS)
    np.testing.assert_allclose(y[0], [3 * r0, 8 * r0], rtol=1e-15)
    r1 = 1 / math.sqrt(float(x64[1, 0]) ** 2 + EPS)  # mean square = eps: eps halves it
    np.testing.assert_allclose(y[1], [x64[1, 0] * r1, 2 * x64[1, 1] * r1], rtol=1e-15)
    assert abs(y[1, 0]) == pytest.approx(1 / math.sqrt(2), rel=1e-6)


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_is_the_float64_formula_per_row(shape: dict) -> None:
    inputs = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))
    y = C.reference(inputs, shape, point())["y"]
    x, w = _as_float64(inputs, "float32")
    for r, row in enumerate(x):
        rstd = 1.0 / math.sqrt(math.fsum(row * row) / row.size + EPS)
        np.testing.assert_allclose(y[r], row * rstd * w, rtol=1e-14)


def _float32_rmsnorm(x: np.ndarray, w: np.ndarray, lanes: int) -> np.ndarray:
    """y in a realization's order: a lane-strided float32 sum of squares, rsqrt, x * rstd * w."""
    ss = row_sum((x * x).astype(F), lanes)
    rstd = rsqrt(((ss / F(x.shape[1])).astype(F) + F(EPS)).astype(F))
    return (((x * rstd[:, None]).astype(F)) * w.astype(F)).astype(F)


@pytest.mark.parametrize("dtype, shape", [
    ("float32", {"rows": 64, "cols": 1031}),
    ("float32", {"rows": 5, "cols": 100_003}),
    ("bfloat16", {"rows": 64, "cols": 1031}),
])
def test_tolerance_holds_for_a_float32_computation_and_catches_errors(dtype: str, shape: dict) -> None:
    tol = C.tolerance_for(point(dtype))
    inputs = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 7))
    ref = C.reference(inputs, shape, point(dtype))["y"]
    x, w = _as_float64(inputs, dtype)
    got = to_float64(from_float64(_float32_rmsnorm(x.astype(F), w.astype(F), 4).astype(np.float64), dtype), dtype)
    fig = error_figures(got, ref)
    assert fig.nan == 0 and fig.max_rel < tol.max_rel / 2 and fig.rel_l2 < tol.rel_l2 / 2, fig
    wrongs = {
        "eps forgotten": rmsnorm_float64(x, w, 0.0),
        "row 2 (at eps) normalized by row 0's statistic": np.vstack([ref[:2], x[2:3] * (ref[0, 0] / x[0, 0]), ref[3:]]),
        "weight read one column off": rmsnorm_float64(x, np.roll(w, 1), EPS),
    }
    for what, wrong in wrongs.items():
        assert error_figures(wrong, ref).max_rel > tol.max_rel, what


def test_tolerance_catches_a_lost_element_of_average_square() -> None:
    shape = {"rows": 8, "cols": 1031}
    tol = C.tolerance_for(point())
    x, w = _as_float64(C.make_inputs(shape, "float32", point(), make_rng(np, 3)), "float32")
    ref = rmsnorm_float64(x, w, EPS)
    row = 0
    ms = (x[row] ** 2).mean()
    lost = ref.copy()
    lost[row] *= math.sqrt(ms / (ms - ms / shape["cols"]))  # one element of average square missing
    assert error_figures(lost, ref).max_rel > tol.max_rel
