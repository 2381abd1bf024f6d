"""The row-softmax-state contract on the CPU: inputs, the -inf convention, reference, shapes,
bytes, tolerance, peers and launch plans of the online-max-accumulation realizations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import online_state

import epldb
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.row_softmax_state import large_rows, neg_inf_mask
from epldb.launch import contract_arrays, plan_env, resolve_plan
from epldb.verify import error_figures

C = get_contract("row-softmax-state")
NEG_INF = -math.inf


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def test_registered_under_its_name_and_named_by_the_primitive() -> None:
    assert REGISTRY["row-softmax-state"] is type(C)
    cat = epldb.load(lint=False)
    assert cat.primitives["online-max-accumulation"].contract == "row-softmax-state"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inputs_never_zero_finite_or_minus_inf_with_large_rows(dtype: str) -> None:
    shape = {"rows": 41, "cols": 1031}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    b = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 2))["x"]
    assert a.shape == (41, 1031) and a.flags.c_contiguous
    assert a.dtype == (np.uint16 if dtype == "bfloat16" else np.float32)
    v = to_float64(a, dtype)
    assert not np.any(v == 0) and not np.any(np.isnan(v)) and not np.any(v == math.inf)
    masked = neg_inf_mask(41, 1031)
    assert np.array_equal(np.isneginf(v), masked)  # -inf exactly where the contract puts it
    finite = v[~masked]
    assert np.abs(finite).max() <= 10_004 and np.abs(finite).max() >= 5000
    big = large_rows(41)
    assert np.all(np.abs(v[big][~masked[big]]) >= 4900)  # the offset rows sit near 1e4
    small = ~big
    assert np.all(np.abs(v[small][~masked[small]]) <= 4.02)
    assert not np.array_equal(a, b)
    assert C.shape_of({"x": a}, point(dtype)) == shape


def test_minus_inf_rows_some_partial_one_whole() -> None:
    rows, cols = 11, 31
    mask = neg_inf_mask(rows, cols)
    full = [r for r in range(rows) if mask[r].all()]
    partial = [r for r in range(rows) if mask[r].any() and not mask[r].all()]
    assert full == [rows // 2]
    assert 2 in partial and 3 in partial and 7 in partial
    assert mask[2, 0] and mask[2, cols - 1] and not mask[2, 1]  # first and last columns masked
    assert mask[3, : cols // 2].all() and not mask[3, cols // 2 :].any()
    # No all -inf row when rows <= 2; a one-column row keeps its finite element.
    assert not neg_inf_mask(2, 31).all(axis=1).any()
    assert not neg_inf_mask(2, 1).any()
    assert neg_inf_mask(3, 1).all(axis=1).tolist() == [False, True, False]


def test_reference_on_tiny_inputs_matches_the_definition_and_the_convention() -> None:
    x = np.array([[1.0, 2.0, 3.0], [NEG_INF, 0.5, NEG_INF], [NEG_INF, NEG_INF, NEG_INF],
                  [9999.0, 10000.0, 9998.0]], np.float32)
    ref = C.reference({"x": x}, {"rows": 4, "cols": 3}, point())
    assert ref["m"].tolist() == [3.0, 0.5, NEG_INF, 10000.0]
    expected_l = [math.exp(-2) + math.exp(-1) + 1, 1.0, 0.0, math.exp(-1) + 1 + math.exp(-2)]
    np.testing.assert_allclose(ref["l"], expected_l, rtol=1e-15, atol=0)
    assert ref["l"][2] == 0.0 and not np.any(np.isnan(ref["l"]))
    # logsumexp = m + log l, all -inf row -> -inf (torch.logsumexp's answer)
    with np.errstate(divide="ignore"):
        lse = ref["m"] + np.log(ref["l"])
    assert lse[2] == NEG_INF and abs(lse[3] - (10000 + math.log(expected_l[3]))) < 1e-9
    assert [(s.name, s.dtype, s.count) for s in C.outputs({"rows": 4, "cols": 3}, point())] == [
        ("m", "float32", 4), ("l", "float32", 4)]


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([[1.0, 2**-8, NEG_INF], [8000.0, 8001.0, 7990.0]]), "bfloat16")}
    ref = C.reference(x, {"rows": 2, "cols": 3}, point("bfloat16"))
    # bf16 steps by 32 at 8000: 8001 and 7990 both round to 8000, so the row is three ties.
    assert ref["m"].tolist() == [1.0, 8000.0]
    np.testing.assert_allclose(ref["l"], [1 + math.exp(2**-8 - 1), 3.0], rtol=1e-15)


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 13, "cols": 257}])
def test_reference_is_the_float64_definition_per_row(shape: dict) -> None:
    x = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))["x"]
    ref = C.reference({"x": x}, shape, point())
    for r, row in enumerate(x.astype(np.float64)):
        finite = row[np.isfinite(row)]
        if finite.size == 0:
            assert ref["m"][r] == NEG_INF and ref["l"][r] == 0.0
            continue
        m = finite.max()
        assert ref["m"][r] == m
        assert math.isclose(ref["l"][r], math.fsum(math.exp(v - m) for v in finite), rel_tol=1e-14)
        assert 1.0 <= ref["l"][r] <= finite.size


@pytest.mark.parametrize("dtype, shape, expected", [
    ("float32", {"rows": 262_144, "cols": 256}, (256 << 20) + 262_144 * 8),
    ("bfloat16", {"rows": 128, "cols": 262_144}, (64 << 20) + 128 * 8),
    ("float32", {"rows": 7, "cols": 4097}, 7 * 4097 * 4 + 7 * 8),
])
def test_bytes_moved_is_one_read_plus_two_floats_per_row(dtype: str, shape: dict, expected: int) -> None:
    assert C.bytes_moved(shape, point(dtype)) == expected
    assert C.flops(shape, point(dtype)) == 5 * shape["rows"] * shape["cols"]


def test_verification_and_bench_shapes() -> None:
    shapes = [(s["rows"], s["cols"]) for s in C.verify_shapes]
    assert shapes[:5] == [(1, 1), (3, 31), (7, 4097), (1031, 257), (5, 100_003)]
    assert any(c % 8 == 0 and (c // 8) % 4 for _, c in shapes)  # vector path, ragged last round
    assert any(c % 4 for _, c in shapes)  # scalar path
    assert max(r * c for r, c in shapes) * 4 > 4 * 60_000_000
    assert sum(1 for r, _ in shapes if r > 2) >= 4  # all -inf rows appear in several shapes
    full = [(s["rows"], s["cols"]) for s in C.bench_shapes(quick=False)]
    assert full == [(262_144, 256), (32_768, 1024), (16_384, 4096), (4096, 16_384), (1024, 65_536), (128, 262_144)]
    assert all(s in C.bench_shapes(quick=False) for s in C.bench_shapes(quick=True))


def test_tolerance_holds_for_the_worst_order_and_catches_a_lost_vector() -> None:
    shape = {"rows": 5, "cols": 100_003}
    tol = C.tolerance_for(point())
    for seed in range(2):
        x = C.make_inputs(shape, "float32", point(), make_rng(np, seed))["x"]
        ref = C.reference({"x": x}, shape, point())
        m, l = (a.astype(np.float64) for a in online_state(x, 4))  # the worst order: 4 lanes a row
        assert error_figures(m, ref["m"]).max_rel == 0.0  # the max is exact, -inf rows included
        fig = error_figures(l, ref["l"])
        assert fig.nan == 0 and fig.max_rel < tol.max_rel / 5, fig
    # A lost 16-byte vector (4 typical fp32 terms) in a 1032-element row shows.
    small = {"rows": 9, "cols": 1032}
    x = C.make_inputs(small, "float32", point(), make_rng(np, 3))["x"]
    ref = C.reference({"x": x}, small, point())
    row = x[0].astype(np.float64)
    lost = ref["l"].copy()
    lost[0] -= np.exp(row[4:8] - ref["m"][0]).sum()
    assert error_figures(lost, ref["l"]).max_rel > tol.max_rel


def test_error_figures_match_infinite_references_exactly() -> None:
    ref = np.array([NEG_INF, 2.0, 3.0])
    assert error_figures(np.array([NEG_INF, 2.0, 3.0]), ref).max_rel == 0.0
    for wrong in (np.nan, 0.0, math.inf, -3.0e38):
        fig = error_figures(np.array([wrong, 2.0, 3.0]), ref)
        assert fig.nan == 1 and fig.first_bad == 0
    fig = error_figures(np.array([NEG_INF, 2.0, 3.3]), ref)  # the scale ignores the -inf
    assert fig.nan == 0 and math.isclose(fig.max_rel, 0.1, rel_tol=1e-12)


def test_peers_and_their_problem_key() -> None:
    assert [p.name for p in C.peers()] == ["torch-eager", "torch-compile"]
    assert C.peer_params({"dtype": "bfloat16", "block": 256, "unroll": 4}) == {"dtype": "bfloat16"}


ROWS_PER_BLOCK = {
    "online-warp": lambda p: p["block"] // 32,
    "online-group": lambda p: p["block"] // p["group"],
    "online-block": lambda p: 1,
    "two-pass": lambda p: 1,
}


@pytest.mark.parametrize("rid", sorted(ROWS_PER_BLOCK))
def test_every_row_gets_a_group_at_every_verify_and_bench_shape(rid: str) -> None:
    cat = epldb.load(lint=False)
    r = cat.realizations[f"online-max-accumulation/{rid}"]
    for shape in (*C.verify_shapes, *C.bench_shapes(quick=False)):
        for p in r.points():
            plan = resolve_plan(r, plan_env(shape, p), contract_arrays(C))
            assert plan.ok, [pr.message for pr in plan.problems]
            per_block = ROWS_PER_BLOCK[rid](p)
            grid = plan.steps[0].grid[0]
            assert (grid - 1) * per_block < shape["rows"] <= grid * per_block
