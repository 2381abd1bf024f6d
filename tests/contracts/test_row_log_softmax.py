"""The row-log-softmax contract on the CPU: inputs (row-softmax-state's), the -inf conventions
(-inf entries and an all -inf row give -inf), the float64 reference, and a tolerance that holds
for a float32 computation in a realization's order and fails a lost vector or a wrong row."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import F, log_of, online_state

from epldb.contracts import get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.verify import error_figures

C = get_contract("row-log-softmax")
NEG_INF = -math.inf


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def test_reference_on_tiny_inputs_with_minus_inf_entries_and_rows() -> None:
    x = np.array([[1.0, 2.0, 3.0], [NEG_INF, 0.5, NEG_INF], [NEG_INF, NEG_INF, NEG_INF],
                  [9999.0, 10000.0, 9998.0]], np.float32)
    y = C.reference({"x": x}, {"rows": 4, "cols": 3}, point())["y"]
    assert y.shape == (4, 3) and y.dtype == np.float64
    lse = 3.0 + math.log(math.exp(-2) + math.exp(-1) + 1)
    np.testing.assert_allclose(y[0], [1 - lse, 2 - lse, 3 - lse], rtol=1e-15)
    assert y[1].tolist() == [NEG_INF, 0.0, NEG_INF]  # -inf entries stay -inf; the lone finite one is log 1
    assert y[2].tolist() == [NEG_INF] * 3  # the convention: an all -inf row is all -inf, not NaN
    log_l = math.log(math.exp(-1) + 1 + math.exp(-2))
    np.testing.assert_allclose(y[3], [-1 - log_l, -log_l, -2 - log_l], rtol=1e-15)  # no overflow at 1e4
    assert not np.any(np.isnan(y))


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([[8000.0, 8001.0, 7990.0]]), "bfloat16")}
    y = C.reference(x, {"rows": 1, "cols": 3}, point("bfloat16"))["y"]
    np.testing.assert_allclose(y, [[-math.log(3)] * 3], rtol=1e-15)  # bf16 steps by 32 at 8000: three ties


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_is_the_log_of_softmax_where_finite(shape: dict) -> None:
    x = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))["x"]
    y = C.reference({"x": x}, shape, point())["y"]
    p = get_contract("row-softmax").reference({"x": x}, shape, point())["y"]
    finite = np.isfinite(x)
    assert np.array_equal(np.isneginf(y), ~finite)  # -inf exactly where x is, whole rows included
    np.testing.assert_allclose(np.exp(y[finite]), p[finite], rtol=1e-12)
    for r, row in enumerate(x.astype(np.float64)):
        if finite[r].any():
            lse = row[finite[r]].max() + math.log(math.fsum(np.exp(row[finite[r]] - row[finite[r]].max())))
            np.testing.assert_allclose(y[r][finite[r]], row[finite[r]] - lse, rtol=1e-13, atol=1e-13)


def _float32_log_softmax(x: np.ndarray, lanes: int) -> np.ndarray:
    """y in a realization's order: (m, l) by the online fold, then (x - shift) - log l in float32."""
    m, l = online_state(x, lanes)
    shift = np.where(np.isneginf(m), F(0), m)
    return ((x - shift[:, None]).astype(F) - log_of(l)[:, None]).astype(F)


@pytest.mark.parametrize("dtype, shape", [
    ("float32", {"rows": 11, "cols": 1031}),
    ("float32", {"rows": 5, "cols": 100_003}),
    ("bfloat16", {"rows": 11, "cols": 1031}),
])
def test_tolerance_holds_for_a_float32_computation_and_catches_a_lost_vector_and_a_wrong_row(
        dtype: str, shape: dict) -> None:
    tol = C.tolerance_for(point(dtype))
    x = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 7))["x"]
    ref = C.reference({"x": x}, shape, point(dtype))["y"]
    xf = to_float64(x, dtype).astype(F)
    got = to_float64(from_float64(_float32_log_softmax(xf, 4).astype(np.float64), dtype), dtype)
    fig = error_figures(got, ref)
    assert fig.nan == 0 and fig.max_rel < tol.max_rel / 2 and fig.rel_l2 < tol.rel_l2 / 2, fig
    # A row whose l lost a 16-byte vector's terms (4 of cols) is shifted by log(1 / (1 - 4 / cols)).
    # In bf16 the offset rows' outputs reach -64 (ties 32 apart), so 2^-7 of the scale is 0.5: only
    # a lost half of the row's mass is caught.
    lost = got.copy()
    lost[0] += math.log(1.0 / (1.0 - (4 / shape["cols"] if dtype == "float32" else 1 / 2)))
    assert error_figures(lost, ref).max_rel > tol.max_rel
    # Row 0 normalized by row 1's statistics (an offset row): off by about 1e4.
    wrong = got.copy()
    wrong[0] = ref[0] + (ref[1].max() - ref[0].max())
    assert error_figures(wrong, ref).max_rel > tol.max_rel


def test_an_unwritten_nan_or_finite_output_fails_where_minus_inf_is_due() -> None:
    shape = {"rows": 5, "cols": 31}
    x = C.make_inputs(shape, "float32", point(), make_rng(np, 1))["x"]
    ref = C.reference({"x": x}, shape, point())["y"]
    masked = shape["rows"] // 2
    assert np.all(np.isneginf(ref[masked]))
    for wrong in (np.nan, -3.0e38, 0.0):  # torch's NaN, a large finite stand-in, softmax's zero
        got = ref.copy()
        got[masked] = wrong
        assert error_figures(got, ref).nan == shape["cols"]
