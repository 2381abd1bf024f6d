"""The row-attention-decode contract on the CPU: arrays and shapes (dim 128), inputs (row-softmax-
state's scores, values uniform in [-1, 1)), the float64 reference against direct formulas and the
-inf convention (masked keys weigh nothing, an all -inf row gives o = 0 and lse = -inf), bytes and
flops, the launch plans of the realizations that name it, and a tolerance that holds for float32
replays of those realizations' orders (epl/body/attention.cuh) and fails a lost key, a lost piece of
a value vector, a wrong row, a lost split and the normalized (o_i, lse_i) merge of split partials.
On the GPU: inputs and the reference on the device."""

from __future__ import annotations

import math
import tracemalloc
from typing import Any

import numpy as np
import pytest
from float32_replays import attention_decode

import epldb
from repository import repository_catalog
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import from_float64, storage_dtype, to_float64
from epldb.contracts.row_softmax_state import large_rows, neg_inf_mask
from epldb.launch import contract_arrays, plan_env, resolve_plan
from epldb.launch.domain import outside_domain
from epldb.verify import error_figures

C = get_contract("row-attention-decode")
STATE = get_contract("row-softmax-state")
CATALOG = repository_catalog()
NEG_INF = -math.inf
F = np.float32
DTYPES = ("float32", "bfloat16")
#: (splits, warps, unroll, form) of the realizations naming the contract: online-block,
#: split-kv, materialize-weights (catalog/realizations/{streaming-weighted-reduction,split-state-merge}).
ORDERS: dict[str, dict[str, Any]] = {
    "online-block 4x4": {"warps": 4, "unroll": 4},
    "online-block 8x8": {"warps": 8, "unroll": 8},
    "split-kv 4": {"splits": 4, "warps": 4, "unroll": 4},
    "split-kv 64": {"splits": 64, "warps": 8, "unroll": 4},
    "materialize-weights 16": {"splits": 16, "warps": 8, "unroll": 4, "form": "materialized"},
}


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def shape(rows: int, cols: int, dim: int = 128) -> dict:
    return {"rows": rows, "cols": cols, "dim": dim}


def instance(sh: dict, dtype: str = "float32", seed: int = 1) -> tuple[dict, dict, np.ndarray, np.ndarray]:
    """Inputs, reference and the inputs' exact values as float32 [rows, cols] and [rows, cols, dim]."""
    inputs = C.make_inputs(sh, dtype, point(dtype), make_rng(np, seed))
    ref = C.reference(inputs, sh, point(dtype))
    s = to_float64(inputs["s"], dtype).astype(F).reshape(sh["rows"], sh["cols"])
    v = to_float64(inputs["v"], dtype).astype(F).reshape(sh["rows"], sh["cols"], sh["dim"])
    return inputs, ref, s, v


def worst(o: np.ndarray, lse: np.ndarray, ref: dict) -> float:
    """The verifier's figure over both outputs (max_rel and rel_l2 alike); inf if any is bad."""
    figs = [error_figures(o.astype(np.float64), ref["o"]), error_figures(lse.astype(np.float64), ref["lse"])]
    if any(f.nan for f in figs):
        return math.inf
    return max(max(f.max_rel, f.rel_l2) for f in figs)


# --- registration, arrays, shapes -------------------------------------------------------------------


def test_registered_and_named_by_both_primitives_and_their_realizations() -> None:
    assert REGISTRY["row-attention-decode"] is type(C) and C.name == "row-attention-decode"
    for pid in ("streaming-weighted-reduction", "split-state-merge"):
        assert CATALOG.primitives[pid].contract == "row-attention-decode"
    assert CATALOG.primitives["online-max-accumulation"].contract == "row-softmax-state"  # untouched
    for r in CATALOG.realizations.values():
        if r.primitive in ("streaming-weighted-reduction", "split-state-merge"):
            assert CATALOG.contract_name_of(r) == "row-attention-decode", r.id


@pytest.mark.parametrize("dtype", DTYPES)
def test_arrays_names_dtypes_and_counts(dtype: str) -> None:
    sh = shape(7, 4097)
    assert C.shape_vars == ("rows", "cols", "dim")
    assert [(s.name, s.dtype, s.count) for s in C.inputs(sh, point(dtype))] == [
        ("s", dtype, 7 * 4097), ("v", dtype, 7 * 4097 * 128)]
    assert [(s.name, s.dtype, s.count) for s in C.outputs(sh, point(dtype))] == [
        ("o", "float32", 7 * 128), ("lse", "float32", 7)]
    assert C.input_names == ("s", "v") and C.output_names == ("o", "lse")
    assert C.scalar_args == {} and C.ceiling == "read"
    assert set(contract_arrays(C)) == {"s", "v", "o", "lse"}


def test_shape_of_reads_rows_and_cols_from_s_and_dim_from_v() -> None:
    s, v = np.zeros((3, 31), F), np.zeros((3, 31, 128), F)
    assert C.shape_of({"s": s, "v": v}, point()) == shape(3, 31)
    assert C.shape_of({"s": s, "v": v.ravel()}, point()) == shape(3, 31)  # a flat v: size / (rows * cols)
    assert C.shape_of({"s": s[0], "v": v[0]}, point()) == shape(1, 31)  # a 1-D s is one row
    assert C.shape_of({"s": s, "v": np.zeros((3, 31, 64), F)}, point()) == shape(3, 31, 64)


def test_verification_and_bench_shapes() -> None:
    assert all(s["dim"] == 128 and set(s) == {"rows", "cols", "dim"}
               for s in (*C.verify_shapes, *C.bench_shapes(quick=False)))
    assert [(s["rows"], s["cols"]) for s in C.verify_shapes] == [
        (1, 1), (3, 31), (7, 4097), (2, 65_537), (33, 8), (129, 1032), (5, 20_011)]
    full = [(s["rows"], s["cols"]) for s in C.bench_shapes(quick=False)]
    assert full == [(1024, 1024), (256, 4096), (64, 16_384), (8, 131_072)]
    assert C.bench_shapes(quick=True) == (C.bench_shapes(quick=False)[0], C.bench_shapes(quick=False)[-1])
    for s in C.bench_shapes(quick=False):  # v: 512 MiB in float32, 256 MiB in bfloat16
        assert C.inputs(s, point())[1].nbytes == 512 << 20
        assert C.inputs(s, point("bfloat16"))[1].nbytes == 256 << 20
    assert len([s for s in C.verify_shapes if s["rows"] > 2]) >= 4  # all -inf rows at several shapes


@pytest.mark.parametrize("dtype", DTYPES)
def test_float64_reference_of_the_largest_verify_shape_fits_in_a_gigabyte(dtype: str) -> None:
    sh = max(C.verify_shapes, key=lambda s: s["rows"] * s["cols"])
    inputs = C.make_inputs(sh, dtype, point(dtype), make_rng(np, 1))
    tracemalloc.start()
    try:
        C.reference(inputs, sh, point(dtype))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 30, peak


@pytest.mark.parametrize("dtype, sh, expected", [
    ("float32", shape(1024, 1024), (4 << 20) + (512 << 20) + 1024 * 129 * 4),
    ("bfloat16", shape(8, 131_072), (2 << 20) + (256 << 20) + 8 * 129 * 4),
    ("float32", shape(7, 4097), 7 * 4097 * 4 + 7 * 4097 * 128 * 4 + 7 * 128 * 4 + 7 * 4),
])
def test_bytes_moved_reads_s_and_v_once_and_writes_o_and_lse(dtype: str, sh: dict, expected: int) -> None:
    assert C.bytes_moved(sh, point(dtype)) == expected
    assert C.flops(sh, point(dtype)) == sh["rows"] * sh["cols"] * (2 * 128 + 5)


# --- inputs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_scores_are_row_softmax_states_and_values_uniform_fresh_and_never_all_zero(dtype: str) -> None:
    sh = shape(41, 1031)
    a = C.make_inputs(sh, dtype, point(dtype), make_rng(np, 5))
    again = C.make_inputs(sh, dtype, point(dtype), make_rng(np, 5))
    b = C.make_inputs(sh, dtype, point(dtype), make_rng(np, 6))
    assert list(a) == ["s", "v"]
    # s is row-softmax-state's x, the same function drawing first from the same generator.
    assert np.array_equal(a["s"], STATE.make_inputs({"rows": 41, "cols": 1031}, dtype, point(dtype), make_rng(np, 5))["x"])
    assert a["s"].shape == (41, 1031) and a["v"].shape == (41, 1031, 128)
    for spec in C.inputs(sh, point(dtype)):
        arr = a[spec.name]
        assert arr.dtype == storage_dtype(spec.dtype) and arr.size == spec.count and arr.flags.c_contiguous
        assert np.array_equal(arr, again[spec.name]) and not np.array_equal(arr, b[spec.name])
    v = to_float64(a["v"], dtype)
    assert v.min() >= -1.0 and v.max() <= 1.0 and np.all(np.isfinite(v))
    assert np.mean(v == 0) < 1e-4 and np.all(np.abs(v).max(axis=2) > 0.5)  # no key's vector near zero
    assert abs(v.mean()) < 0.01 and 0.57 < v.std() < 0.585  # uniform on [-1, 1): std 1/sqrt(3)
    assert C.shape_of(a, point(dtype)) == sh


@pytest.mark.parametrize("sh", C.verify_shapes, ids=lambda s: f"{s['rows']}x{s['cols']}")
def test_score_inputs_work_at_every_verify_shape(sh: dict) -> None:
    rows, cols = sh["rows"], sh["cols"]
    _, ref, s, _ = instance(sh, "bfloat16", seed=2)
    masked = neg_inf_mask(rows, cols)
    assert np.array_equal(np.isneginf(s), masked)
    full = [r for r in range(rows) if masked[r].all()]
    assert full == ([rows // 2] if rows > 2 else [])
    assert np.all(np.isfinite(ref["o"])) and np.all(ref["o"][full] == 0)
    assert np.all(ref["lse"][full] == NEG_INF) and np.all(np.isfinite(np.delete(ref["lse"], full)))
    if rows > 1 and 1 not in full:  # row 1 sits at an offset near 1e4
        assert 4900 <= abs(ref["lse"][1]) <= 10_100


# --- reference ---------------------------------------------------------------------------------------


def test_reference_on_tiny_inputs_with_masked_keys_an_all_minus_inf_row_and_an_offset_row() -> None:
    s = np.array([[1.0, 2.0, 3.0], [NEG_INF, 0.5, NEG_INF], [NEG_INF, NEG_INF, NEG_INF],
                  [9999.0, 10000.0, 9998.0]], F)
    v = np.arange(4 * 3 * 2, dtype=F).reshape(4, 3, 2) / 8 - 1
    ref = C.reference({"s": s, "v": v}, shape(4, 3, 2), point())
    assert ref["o"].shape == (4, 2) and ref["lse"].shape == (4,) and ref["o"].dtype == np.float64
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ref["o"][0], e @ v[0].astype(np.float64) / e.sum(), rtol=1e-15)
    assert ref["lse"][0] == pytest.approx(math.log(e.sum()), rel=1e-15)
    assert ref["o"][1].tolist() == v[1, 1].tolist() and ref["lse"][1] == 0.5  # only the finite key
    assert ref["o"][2].tolist() == [0.0, 0.0] and ref["lse"][2] == NEG_INF  # the convention
    e3 = np.exp([-1.0, 0.0, -2.0])
    np.testing.assert_allclose(ref["o"][3], e3 @ v[3].astype(np.float64) / e3.sum(), rtol=1e-15)  # no overflow
    assert ref["lse"][3] == pytest.approx(10_000 + math.log(e3.sum()), rel=1e-15)


def test_reference_uses_the_exact_bfloat16_values() -> None:
    s = from_float64(np.array([[8000.0, 8001.0, 7990.0, 7900.0]]), "bfloat16")  # steps of 32: three ties
    v = from_float64(np.array([[[1 / 3, 1.0], [-0.1, 0.5], [0.7, -1.0], [0.9, 0.9]]]), "bfloat16")
    ref = C.reference({"s": s, "v": v}, shape(1, 4, 2), point("bfloat16"))
    exact_v = to_float64(v, "bfloat16")[0]
    w = np.array([1.0, 1.0, 1.0, math.exp(-96.0)])  # 7900 rounds to 7904
    np.testing.assert_allclose(ref["o"][0], w @ exact_v / w.sum(), rtol=1e-15)
    assert ref["lse"][0] == pytest.approx(8000 + math.log(w.sum()), rel=1e-15)


@pytest.mark.parametrize("sh", [shape(1, 1), shape(3, 31), shape(13, 257), shape(6, 40, 4)],
                         ids=lambda s: f"{s['rows']}x{s['cols']}x{s['dim']}")
def test_reference_is_the_float64_definition_per_row(sh: dict) -> None:
    inputs, ref, _, _ = instance(sh, seed=sh["cols"])
    s, v = inputs["s"].astype(np.float64), inputs["v"].astype(np.float64)
    lse = get_contract("row-logsumexp").reference({"x": inputs["s"]},
                                                  {"rows": sh["rows"], "cols": sh["cols"]}, point())["out"]
    assert np.array_equal(ref["lse"], lse)  # row-logsumexp's answer, -inf included
    for r in range(sh["rows"]):
        keep = np.isfinite(s[r])
        if not keep.any():
            assert np.all(ref["o"][r] == 0.0) and ref["lse"][r] == NEG_INF
            continue
        m = s[r][keep].max()
        w = np.exp(s[r][keep] - m)
        l = math.fsum(w)
        for d in range(sh["dim"]):
            assert math.isclose(ref["o"][r, d], math.fsum(w * v[r][keep][:, d]) / l, rel_tol=1e-12, abs_tol=1e-15)
        assert math.isclose(ref["lse"][r], m + math.log(l), rel_tol=1e-14)


def test_reference_matches_the_direct_formula_on_safe_rows() -> None:
    sh = shape(13, 257)
    inputs, ref, _, _ = instance(sh, seed=4)
    s, v = inputs["s"].astype(np.float64), inputs["v"].astype(np.float64)
    safe = ~large_rows(13) & np.isfinite(s).any(axis=1)  # |s| <= 4: exp(s) cannot overflow
    e = np.exp(s[safe])  # 0 at -inf
    np.testing.assert_allclose(ref["o"][safe], np.einsum("rj,rjd->rd", e, v[safe]) / e.sum(axis=1)[:, None],
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ref["lse"][safe], np.log(e.sum(axis=1)), rtol=1e-13)


def test_masked_keys_contribute_nothing_whatever_their_values() -> None:
    sh = shape(11, 31)
    inputs, ref, _, _ = instance(sh, seed=3)
    masked = np.isneginf(inputs["s"])
    v = inputs["v"].copy()
    v[masked] = 1.0e30  # anything at a masked key: read but weighing exactly 0
    again = C.reference({"s": inputs["s"], "v": v}, sh, point())
    assert np.array_equal(again["o"], ref["o"]) and np.array_equal(again["lse"], ref["lse"])


def test_reference_is_the_same_on_a_flat_value_array() -> None:
    sh = shape(5, 31)
    inputs, ref, _, _ = instance(sh, seed=9)
    flat = C.reference({"s": inputs["s"].ravel(), "v": inputs["v"].ravel()}, sh, point())
    assert np.array_equal(flat["o"], ref["o"]) and np.array_equal(flat["lse"], ref["lse"])


# --- tolerance ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sh", [shape(129, 1032), shape(5, 20_011)], ids=["129x1032", "5x20011"])
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_tolerance_holds_for_the_realizations_orders(order: str, sh: dict, dtype: str) -> None:
    tol = C.tolerance_for(point(dtype))
    assert tol == C.tolerance["float32"]  # one tolerance: float32 outputs from exact float32 inputs
    _, ref, s, v = instance(sh, dtype, seed=7)
    o, lse = attention_decode(s, v, noise=np.random.default_rng(7), **ORDERS[order])
    assert worst(o, lse, ref) < tol.max_rel / 10


@pytest.mark.parametrize("dtype", DTYPES)
def test_tolerance_holds_at_the_longest_rows_for_one_block_a_row_and_a_single_chain(dtype: str) -> None:
    sh = shape(2, 65_537)
    tol = C.tolerance_for(point(dtype))
    _, ref, s, v = instance(sh, dtype, seed=3)
    o, lse = attention_decode(s, v, warps=4, unroll=4, noise=np.random.default_rng(3))
    assert worst(o, lse, ref) < tol.max_rel / 8
    # One warp, one key a round: a single float32 chain over 65537 keys, the worst order there is.
    o, lse = attention_decode(s, v, noise=np.random.default_rng(3))
    assert tol.max_rel / 10 < worst(o, lse, ref) < tol.max_rel / 2


def _median_key(s_row: np.ndarray) -> int:
    keep = np.flatnonzero(np.isfinite(s_row))
    return int(keep[np.argsort(s_row[keep])[len(keep) // 2]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sh", [shape(7, 4097), shape(5, 20_011), shape(2, 65_537)],
                         ids=["7x4097", "5x20011", "2x65537"])
def test_tolerance_fails_a_lost_key_of_median_weight_and_a_wrong_row(sh: dict, dtype: str) -> None:
    tol = C.tolerance_for(point(dtype))
    _, ref, s, v = instance(sh, dtype, seed=11)
    order: dict[str, Any] = {"warps": 4, "unroll": 4, "noise": np.random.default_rng(0)}
    lost = s.copy()
    lost[0, _median_key(s[0])] = -np.inf  # the key never folded
    o, lse = attention_decode(lost, v, **order)
    assert worst(o, lse, ref) > 2 * tol.max_rel
    o, lse = attention_decode(s, v, **order)
    assert worst(o, lse, ref) < tol.max_rel / 5
    wrong_o, wrong_lse = o.copy(), lse.copy()
    wrong_o[0] = o[1]  # a row's result written for its neighbour
    assert worst(wrong_o, lse, ref) > 100 * tol.max_rel
    wrong_lse[0] = lse[1]
    assert worst(o, wrong_lse, ref) > 100 * tol.max_rel


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sh", [shape(33, 8), shape(129, 1032), shape(5, 20_011)], ids=["33x8", "129x1032", "5x20011"])
def test_tolerance_fails_a_lost_16_byte_piece_of_a_value_vector(sh: dict, dtype: str) -> None:
    tol = C.tolerance_for(point(dtype))
    _, ref, s, v = instance(sh, dtype, seed=5)
    piece = 16 // (4 if dtype == "float32" else 2)  # values in one 16-byte load
    lost = v.copy()
    lost[0, _median_key(s[0]), 8 : 8 + piece] = 0.0
    o, lse = attention_decode(s, lost, warps=4, unroll=4, noise=np.random.default_rng(0))
    assert worst(o, lse, ref) > 2 * tol.max_rel


@pytest.mark.parametrize("sh", [shape(7, 4097), shape(2, 65_537)], ids=["7x4097", "2x65537"])
def test_tolerance_fails_a_lost_split(sh: dict) -> None:
    tol = C.tolerance_for(point())
    _, ref, s, v = instance(sh, seed=13)
    lost = s.copy()
    chunk = -(-sh["cols"] // 16)
    lost[:, 5 * chunk : 6 * chunk] = -np.inf  # split 5 of 16 never merged, in every row
    o, lse = attention_decode(lost, v, splits=16, warps=4, unroll=4)
    assert worst(o, lse, ref) > 20 * tol.max_rel


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sh", [shape(33, 8), shape(129, 1032), shape(7, 4097)], ids=["33x8", "129x1032", "7x4097"])
def test_the_normalized_lse_merge_of_split_partials_fails_at_the_offset_rows(sh: dict, dtype: str) -> None:
    """(o_i, lse_i) stored per split and merged by exp(lse_i - lse): lse_i rounded near 1e4 loses
    half an ulp of 1e4 of every weight. The unnormalized (m_i, l_i, acc_i) merge, same splits,
    holds."""
    tol = C.tolerance_for(point(dtype))
    _, ref, s, v = instance(sh, dtype, seed=17)
    splits = 16 if sh["cols"] > 16 else 2
    o, lse = attention_decode(s, v, splits=splits, warps=4, unroll=4, form="lse")
    assert worst(o, lse, ref) > 1.5 * tol.max_rel
    o, lse = attention_decode(s, v, splits=splits, warps=4, unroll=4)
    assert worst(o, lse, ref) < tol.max_rel / 10


def test_unwritten_or_nan_outputs_and_a_finite_lse_where_minus_inf_is_due_fail() -> None:
    sh = shape(5, 31)
    _, ref, s, v = instance(sh, seed=1)
    masked_row = sh["rows"] // 2
    o, lse = attention_decode(s, v, warps=4, unroll=4)
    assert np.all(o[masked_row] == 0) and lse[masked_row] == -np.inf  # the replay keeps the convention
    assert worst(o, lse, ref) < C.tolerance["float32"].max_rel
    got = o.copy()
    got[masked_row] = np.nan  # torch.softmax's answer for the masked row, or poison
    assert error_figures(got.astype(np.float64), ref["o"]).nan == sh["dim"]
    for wrong in (np.nan, -3.0e38, 0.0):
        bad = lse.copy()
        bad[masked_row] = wrong
        assert error_figures(bad.astype(np.float64), ref["lse"]).nan == 1


# --- launch plans and peers --------------------------------------------------------------------------


REALIZATIONS = sorted(r.id for r in CATALOG.realizations.values() if CATALOG.contract_name_of(r) == C.name)


@pytest.mark.parametrize("rid", REALIZATIONS)
def test_every_realization_plans_at_every_verify_and_bench_shape(rid: str) -> None:
    r = CATALOG.realizations[rid]
    resolved = 0
    for sh in (*C.verify_shapes, *C.bench_shapes(quick=False)):
        for p in r.points():
            env = plan_env(sh, p)
            assert outside_domain(r, env) is None, (sh, p)  # dim 128 everywhere
            plan = resolve_plan(r, env, contract_arrays(C))
            assert plan.ok, [pr.message for pr in plan.problems]
            resolved += 1
    assert resolved > 0


def test_peers_their_problem_key_and_titles() -> None:
    peers = C.peers()
    assert [p.name for p in peers] == ["torch-eager", "torch-compile"]
    assert all(p.tolerance is None for p in peers)  # float32 throughout: the contract's tolerance
    assert "torch.bmm" in peers[0].title and "v.float()" in peers[0].title and "NaN" in peers[0].title
    assert C.peer_params({"dtype": "bfloat16", "warps": 4, "splits": 16}) == {"dtype": "bfloat16"}


# --- GPU -----------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_device_inputs_and_reference_match_the_host_ones(dtype: str) -> None:
    import cupy

    sh = shape(7, 4097)
    inputs = C.make_inputs(sh, dtype, point(dtype), make_rng(cupy, 3), cupy)
    assert inputs["s"].shape == (7, 4097) and inputs["v"].shape == (7, 4097, 128)
    assert inputs["v"].dtype == storage_dtype(dtype)
    host = {k: cupy.asnumpy(a) for k, a in inputs.items()}
    ref_d = C.reference(inputs, sh, point(dtype), cupy)
    ref_h = C.reference(host, sh, point(dtype))
    np.testing.assert_allclose(cupy.asnumpy(ref_d["o"]), ref_h["o"], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(np.isneginf(cupy.asnumpy(ref_d["lse"])), np.isneginf(ref_h["lse"]))
    np.testing.assert_allclose(cupy.asnumpy(ref_d["lse"]), ref_h["lse"], rtol=1e-14)
    assert error_figures(ref_d["o"], ref_d["o"], cupy).max_rel == 0.0


@pytest.mark.gpu
def test_device_inputs_at_the_largest_bench_shape() -> None:
    import cupy

    sh = C.bench_shapes(quick=False)[-1]
    inputs = C.make_inputs(sh, "bfloat16", point("bfloat16"), make_rng(cupy, 1), cupy)
    assert inputs["v"].shape == (8, 131_072, 128) and inputs["v"].nbytes == 256 << 20
    ref = C.reference(inputs, sh, point("bfloat16"), cupy)
    assert bool(cupy.all(cupy.isfinite(ref["o"]))) and ref["lse"].shape == (8,)
