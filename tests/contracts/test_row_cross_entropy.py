"""The row-cross-entropy contract on the CPU: logits (row-softmax-state's), int64 targets at finite
logits except in the ignored rows (the all -inf row among them), the float64 reference (0 where
ignored, NaN outside the row) against the log-softmax and logsumexp references, and a tolerance
that holds for the accurate float32 order ((m - x_t) + log l), fails the order that rounds
logsumexp first (lse - x_t), a wrong target and a lost vector."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import F, log_of, online_state

from epldb.contracts import get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.row_cross_entropy import IGNORE_INDEX, ignored_rows
from epldb.contracts.row_softmax_state import neg_inf_mask
from epldb.verify import error_figures

C = get_contract("row-cross-entropy")
NEG_INF = -math.inf


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_logits_have_minus_inf_entries_and_targets_are_finite_or_ignored(dtype: str) -> None:
    shape = {"rows": 41, "cols": 1031}
    inputs = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 5))
    x, t = to_float64(inputs["x"], dtype), inputs["target"]
    mask = neg_inf_mask(41, 1031)
    assert np.array_equal(np.isneginf(x), mask) and mask.any() and mask.all(axis=1).sum() == 1
    ignored = ignored_rows(41)
    assert C.int_scalar("ignore_index") == IGNORE_INDEX == -100
    assert ignored[20] and mask[20].all() and ignored.sum() == 6  # the all -inf row and r % 8 == 5
    assert np.all(t[ignored] == IGNORE_INDEX) and t.dtype == np.int64 and t.shape == (41,)
    kept = t[~ignored]
    assert kept.min() >= 0 and kept.max() < 1031
    assert np.all(np.isfinite(x[np.arange(41)[~ignored], kept]))  # every kept target at a finite logit
    # Uniform among the finite entries: spread over the row, including masked rows' gaps.
    assert len(set(kept.tolist())) > 25
    assert all(t[r] % 3 == 1 for r in range(41) if r % 5 == 2 and not ignored[r])
    assert all(t[r] >= 1031 // 2 for r in range(41) if r % 5 == 3 and not ignored[r])


def test_reference_gives_0_for_ignored_rows_and_nan_outside_the_row() -> None:
    x = np.array([[1.0, 2.0, 3.0]] * 5, np.float32)
    t = np.array([-100, 3, -1, 7, 1], np.int64)
    loss = C.reference({"x": x, "target": t}, {"rows": 5, "cols": 3}, point())["loss"]
    assert loss[0] == 0.0 and np.isnan(loss[1:4]).all() and loss[4] > 0
    ignoring_7 = C.__class__()  # the same problem with another ignore_index
    ignoring_7.scalar_args = {"ignore_index": 7}
    loss7 = ignoring_7.reference({"x": x, "target": t}, {"rows": 5, "cols": 3}, point())["loss"]
    assert np.isnan(loss7[0]) and loss7[3] == 0.0


def test_one_column_rows_target_their_only_class() -> None:
    inputs = C.make_inputs({"rows": 3, "cols": 1}, "float32", point(), make_rng(np, 1))
    # Row 1 is the all -inf row, ignored.
    assert inputs["target"].tolist() == [0, IGNORE_INDEX, 0] and np.isfinite(inputs["x"][[0, 2]]).all()
    assert C.reference(inputs, {"rows": 3, "cols": 1}, point())["loss"].tolist() == [0.0, 0.0, 0.0]


def test_reference_on_tiny_inputs() -> None:
    x = np.array([[1.0, 2.0, 3.0], [NEG_INF, 0.5, NEG_INF], [9999.0, 10000.0, 9998.0]], np.float32)
    t = np.array([0, 1, 2], np.int64)
    loss = C.reference({"x": x, "target": t}, {"rows": 3, "cols": 3}, point())["loss"]
    assert loss.shape == (3,) and loss.dtype == np.float64
    assert loss[0] == pytest.approx(math.log(math.exp(1) + math.exp(2) + math.exp(3)) - 1, rel=1e-15)
    assert loss[1] == 0.0  # the only finite class: probability 1
    assert loss[2] == pytest.approx(2 + math.log(math.exp(-1) + 1 + math.exp(-2)), rel=1e-15)  # no overflow


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = from_float64(np.array([[8000.0, 8001.0, 7990.0]]), "bfloat16")
    loss = C.reference({"x": x, "target": np.array([2])}, {"rows": 1, "cols": 3}, point("bfloat16"))["loss"]
    assert loss[0] == pytest.approx(math.log(3), rel=1e-15)  # bf16 steps by 32 at 8000: three ties


@pytest.mark.parametrize("shape", [{"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_is_minus_log_softmax_at_the_target_and_logsumexp_minus_the_logit(shape: dict) -> None:
    inputs = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))
    loss = C.reference(inputs, shape, point())["loss"]
    kept = ~ignored_rows(shape["rows"])
    rows, t = np.arange(shape["rows"])[kept], inputs["target"][kept]
    assert np.all(loss[~kept] == 0.0)
    y = get_contract("row-log-softmax").reference({"x": inputs["x"]}, shape, point())["y"]
    np.testing.assert_allclose(loss[kept], -y[rows, t], rtol=1e-13, atol=1e-13)
    lse = get_contract("row-logsumexp").reference({"x": inputs["x"]}, shape, point())["out"][kept]
    x_t = inputs["x"].astype(np.float64)[rows, t]
    np.testing.assert_allclose(loss[kept], lse - x_t, rtol=1e-9, atol=1e-9)  # float64 has room for 1e4 here
    assert np.all(loss >= 0) and np.all(np.isfinite(loss))


def _float32_losses(x: np.ndarray, t: np.ndarray, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """(accurate, rounded-first) losses in float32: (m - x_t) + log l, and (m + log l) - x_t."""
    m, l = online_state(x, lanes)
    ignored = t == IGNORE_INDEX
    x_t = x[np.arange(x.shape[0]), np.where(ignored, 0, t)]
    with np.errstate(invalid="ignore", divide="ignore"):  # the ignored all -inf row
        accurate = np.where(ignored, F(0), ((m - x_t).astype(F) + log_of(l)).astype(F))
        rounded_first = np.where(ignored, F(0), ((m + log_of(l)).astype(F) - x_t).astype(F))
    return accurate, rounded_first


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("shape", [{"rows": 1031, "cols": 257}, {"rows": 5, "cols": 100_003}])
def test_tolerance_holds_for_the_accurate_order_and_fails_the_rounded_first_one(dtype: str, shape: dict) -> None:
    tol = C.tolerance_for(point(dtype))
    inputs = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 7))
    ref = C.reference(inputs, shape, point(dtype))["loss"]
    accurate, rounded_first = _float32_losses(to_float64(inputs["x"], dtype).astype(F), inputs["target"], 4)
    fig = error_figures(accurate.astype(np.float64), ref)
    assert fig.nan == 0 and fig.max_rel < tol.max_rel / 3 and fig.rel_l2 < tol.rel_l2 / 3, fig
    if shape["rows"] > 100:  # many offset rows: the rounding of lse near 1e4 shows in one of them
        assert error_figures(rounded_first.astype(np.float64), ref).max_rel > 2 * tol.max_rel


def test_tolerance_fails_a_wrong_target_and_a_lost_vector() -> None:
    shape = {"rows": 11, "cols": 1031}
    tol = C.tolerance_for(point())
    inputs = C.make_inputs(shape, "float32", point(), make_rng(np, 3))
    ref = C.reference(inputs, shape, point())["loss"]
    x0 = inputs["x"][0].astype(np.float64)
    t0 = int(inputs["target"][0])
    assert t0 >= 0  # row 0 is kept
    other = (t0 + 1) % shape["cols"]
    wrong = ref.copy()
    wrong[0] += x0[t0] - x0[other]  # the logit of the next class picked
    assert error_figures(wrong, ref).max_rel > tol.max_rel
    l0 = np.exp(x0 - x0.max()).sum()
    lost = ref.copy()
    lost[0] += math.log((l0 - np.exp(x0[4:8] - x0.max()).sum()) / l0)
    assert error_figures(lost, ref).max_rel > tol.max_rel
