"""The row-logsumexp contract on the CPU: inputs (row-softmax-state's), the -inf convention (an all
-inf row gives -inf), the float64 reference against direct formulas, and a tolerance that holds
for a float32 computation in a realization's order, fails a wrong row and a lost vector in short
rows, and (as its docstring says) cannot see a lost vector in long rows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import F, log_of, online_state

from epldb.contracts import get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.row_softmax_state import large_rows
from epldb.verify import error_figures

C = get_contract("row-logsumexp")
NEG_INF = -math.inf


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def test_reference_on_tiny_inputs_with_minus_inf_entries_and_rows() -> None:
    x = np.array([[1.0, 2.0, 3.0], [NEG_INF, 0.5, NEG_INF], [NEG_INF, NEG_INF, NEG_INF],
                  [9999.0, 10000.0, 9998.0]], np.float32)
    out = C.reference({"x": x}, {"rows": 4, "cols": 3}, point())["out"]
    assert out.shape == (4,) and out.dtype == np.float64
    assert out[0] == pytest.approx(math.log(math.exp(1) + math.exp(2) + math.exp(3)), rel=1e-15)
    assert out[1] == 0.5
    assert out[2] == NEG_INF  # the convention, as torch.logsumexp
    assert out[3] == pytest.approx(10000 + math.log(math.exp(-1) + 1 + math.exp(-2)), rel=1e-15)  # no overflow


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([[8000.0, 8001.0, 7990.0]]), "bfloat16")}
    out = C.reference(x, {"rows": 1, "cols": 3}, point("bfloat16"))["out"]
    assert out[0] == pytest.approx(8000 + math.log(3), rel=1e-15)  # bf16 steps by 32 at 8000: three ties


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_matches_the_direct_formula_on_safe_rows_and_the_state(shape: dict) -> None:
    x = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))["x"]
    out = C.reference({"x": x}, shape, point())["out"]
    state = get_contract("row-softmax-state").reference({"x": x}, shape, point())
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(out, state["m"] + np.log(state["l"]))  # m + log l, -inf included
    x64 = x.astype(np.float64)
    safe = ~large_rows(shape["rows"]) & np.isfinite(x64).any(axis=1)  # |x| <= 4: exp cannot overflow
    direct = np.log(np.exp(x64[safe]).sum(axis=1))
    np.testing.assert_allclose(out[safe], direct, rtol=1e-13)


def _float32_logsumexp(x: np.ndarray, lanes: int) -> np.ndarray:
    """out in a realization's order: (m, l) by the online fold, then m + log l in float32."""
    m, l = online_state(x, lanes)
    return np.where(l > 0, (m + log_of(l)).astype(F), F(-np.inf))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("shape", [{"rows": 11, "cols": 1031}, {"rows": 5, "cols": 100_003}])
def test_tolerance_holds_for_a_float32_computation_and_catches_a_wrong_row(dtype: str, shape: dict) -> None:
    tol = C.tolerance_for(point(dtype))
    x = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 7))["x"]
    ref = C.reference({"x": x}, shape, point(dtype))["out"]
    got = _float32_logsumexp(to_float64(x, dtype).astype(F), 4).astype(np.float64)
    fig = error_figures(got, ref)
    assert fig.nan == 0 and fig.max_rel < tol.max_rel / 10 and fig.rel_l2 < tol.rel_l2 / 10, fig
    wrong = got.copy()
    wrong[0] = got[1]  # a row's result written for its neighbour (row 1 sits at 1e4)
    assert error_figures(wrong, ref).max_rel > tol.max_rel


@pytest.mark.parametrize("cols, caught", [(129, True), (4097, False)])
def test_a_lost_vector_in_an_offset_row_shows_only_in_short_rows(cols: int, caught: bool) -> None:
    shape = {"rows": 9, "cols": cols}
    tol = C.tolerance_for(point())
    x = C.make_inputs(shape, "float32", point(), make_rng(np, 3))["x"]
    ref = C.reference({"x": x}, shape, point())["out"]
    row = x[1].astype(np.float64)  # an offset row: |out| near 1e4 is the normwise scale
    l = np.exp(row - row.max()).sum()
    lost = ref.copy()
    lost[1] += math.log((l - np.exp(row[4:8] - row.max()).sum()) / l)
    assert (error_figures(lost, ref).max_rel > tol.max_rel) is caught


def test_an_unwritten_nan_or_finite_output_fails_where_minus_inf_is_due() -> None:
    shape = {"rows": 5, "cols": 31}
    x = C.make_inputs(shape, "float32", point(), make_rng(np, 1))["x"]
    ref = C.reference({"x": x}, shape, point())["out"]
    assert ref[shape["rows"] // 2] == NEG_INF
    for wrong in (np.nan, -3.0e38, 0.0):  # poison, a large finite stand-in, log of l = 1
        got = ref.copy()
        got[shape["rows"] // 2] = wrong
        assert error_figures(got, ref).nan == 1
