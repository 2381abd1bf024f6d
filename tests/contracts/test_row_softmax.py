"""The row-softmax contract on the CPU: inputs, the -inf conventions (zeros for an all -inf row),
reference, outputs, bytes, tolerance, peers and the launch plans of the softmax realizations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import online_state
from repository import repository_catalog

import epldb
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.row_softmax_state import neg_inf_mask
from epldb.verify import error_figures

C = get_contract("row-softmax")
STATE = get_contract("row-softmax-state")
NEG_INF = -math.inf


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def test_registered_under_its_name_and_named_by_the_operator() -> None:
    assert REGISTRY["row-softmax"] is type(C)
    cat = epldb.load(lint=False)
    assert cat.operators["softmax"].contract == "row-softmax"
    softmax = [r for r in cat.realizations.values() if r.operator == "softmax"]
    assert softmax and all(cat.contract_name_of(r) == "row-softmax" for r in softmax)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inputs_are_those_of_row_softmax_state(dtype: str) -> None:
    shape = {"rows": 41, "cols": 1031}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 5))["x"]
    b = STATE.make_inputs(shape, dtype, point(dtype), make_rng(np, 5))["x"]
    assert np.array_equal(a, b) and a.shape == (41, 1031)
    assert np.array_equal(np.isneginf(to_float64(a, dtype)), neg_inf_mask(41, 1031))
    assert C.shape_of({"x": a}, point(dtype)) == shape


def test_reference_on_tiny_inputs_with_minus_inf_entries_and_rows() -> None:
    x = np.array([[1.0, 2.0, 3.0], [NEG_INF, 0.5, NEG_INF], [NEG_INF, NEG_INF, NEG_INF],
                  [9999.0, 10000.0, 9998.0]], np.float32)
    y = C.reference({"x": x}, {"rows": 4, "cols": 3}, point())["y"]
    assert y.shape == (4, 3) and y.dtype == np.float64
    e = np.exp([-2.0, -1.0, 0.0])
    np.testing.assert_allclose(y[0], e / e.sum(), rtol=1e-15)
    assert y[1].tolist() == [0.0, 1.0, 0.0]  # -inf entries give exactly 0
    assert y[2].tolist() == [0.0, 0.0, 0.0]  # the convention: an all -inf row is zeros, not NaN
    e3 = np.exp([-1.0, 0.0, -2.0])
    np.testing.assert_allclose(y[3], e3 / e3.sum(), rtol=1e-15)  # no overflow at 1e4
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y[[0, 1, 3]].sum(axis=1), 1.0, rtol=1e-15)


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([[8000.0, 8001.0, 7990.0]]), "bfloat16")}
    y = C.reference(x, {"rows": 1, "cols": 3}, point("bfloat16"))["y"]
    assert y.tolist() == [[1 / 3, 1 / 3, 1 / 3]]  # bf16 steps by 32 at 8000: three ties


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_is_the_float64_definition_per_row(shape: dict) -> None:
    x = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))["x"]
    y = C.reference({"x": x}, shape, point())["y"]
    for r, row in enumerate(x.astype(np.float64)):
        finite = np.isfinite(row)
        if not finite.any():
            assert np.all(y[r] == 0.0)
            continue
        m = row[finite].max()
        l = math.fsum(math.exp(v - m) for v in row[finite])
        np.testing.assert_allclose(y[r][finite], np.exp(row[finite] - m) / l, rtol=1e-13)
        assert np.all(y[r][~finite] == 0.0)
        assert math.isclose(y[r].sum(), 1.0, rel_tol=1e-12)


@pytest.mark.parametrize("dtype, shape, expected", [
    ("float32", {"rows": 262_144, "cols": 256}, 2 * (256 << 20)),
    ("bfloat16", {"rows": 128, "cols": 262_144}, 2 * (64 << 20)),
    ("float32", {"rows": 7, "cols": 4097}, 2 * 7 * 4097 * 4),
])
def test_bytes_moved_is_one_read_and_one_write(dtype: str, shape: dict, expected: int) -> None:
    assert C.bytes_moved(shape, point(dtype)) == expected
    assert C.flops(shape, point(dtype)) == 9 * shape["rows"] * shape["cols"]
    assert C.ceiling == "copy"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_outputs_are_a_matrix_in_the_input_dtype(dtype: str) -> None:
    specs = C.outputs({"rows": 7, "cols": 4097}, point(dtype))
    assert [(s.name, s.dtype, s.count) for s in specs] == [("y", dtype, 7 * 4097)]
    assert [s.name for s in C.inputs({"rows": 7, "cols": 4097}, point(dtype))] == ["x"]


def test_verification_and_bench_shapes_are_the_row_shapes() -> None:
    assert C.verify_shapes == STATE.verify_shapes
    assert C.bench_shapes(quick=False) == STATE.bench_shapes(quick=False)
    assert all(s in C.bench_shapes(quick=False) for s in C.bench_shapes(quick=True))


def _float32_softmax(x: np.ndarray, lanes: int) -> np.ndarray:
    """A float32 softmax in a realization's order: (m, l) by the online fold of
    float32_replays.online_state, then exp(x - shift) * (1 / l) in float32."""
    m, l = online_state(x, lanes)
    shift = np.where(np.isneginf(m), np.float32(0), m)
    with np.errstate(divide="ignore"):
        inv_l = np.where(l > 0, np.float32(1) / l, np.float32(0)).astype(np.float32)
    return (np.exp(x - shift[:, None]) * inv_l[:, None]).astype(np.float32)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_tolerance_holds_for_a_float32_computation_and_catches_a_wrong_l(dtype: str) -> None:
    shape = {"rows": 11, "cols": 1031}
    tol = C.tolerance_for(point(dtype))
    x = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 7))["x"]
    ref = C.reference({"x": x}, shape, point(dtype))["y"]
    xf = to_float64(x, dtype).astype(np.float32)
    got = to_float64(from_float64(_float32_softmax(xf, 4).astype(np.float64), dtype), dtype)
    fig = error_figures(got, ref)
    assert fig.nan == 0 and fig.max_rel < tol.max_rel / 2 and fig.rel_l2 < tol.rel_l2 / 2, fig
    # A row normalized by an l that lost a 16-byte vector's terms (4 of ~1000) is caught in fp32;
    # in bf16 a lost 1/8 of the row's mass is.
    wrong = got.copy()
    wrong[0] *= 1.0 / (1.0 - (4 / 1031 if dtype == "float32" else 1 / 8))
    assert error_figures(wrong, ref).max_rel > tol.max_rel


def test_an_unwritten_or_nan_output_fails_even_in_an_all_minus_inf_row() -> None:
    shape = {"rows": 5, "cols": 31}
    x = C.make_inputs(shape, "float32", point(), make_rng(np, 1))["x"]
    ref = C.reference({"x": x}, shape, point())["y"]
    assert np.all(ref[shape["rows"] // 2] == 0.0)
    got = ref.copy()
    got[shape["rows"] // 2] = np.nan  # torch.softmax's answer for the masked row
    assert error_figures(got, ref).nan == shape["cols"]


def test_peers_and_their_problem_key() -> None:
    assert [p.name for p in C.peers()] == list(repository_catalog().operators["softmax"].peers)
    assert [p.name for p in C.peers()][:2] == ["torch-eager", "torch-compile"]
    assert all(p.tolerance is None for p in C.peers())
    assert C.peer_params({"dtype": "bfloat16", "block": 256, "chunk": 8}) == {"dtype": "bfloat16"}
