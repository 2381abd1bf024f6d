"""The row-moments contract on the CPU: inputs (mean >> std), reference, shapes, bytes, tolerances,
peers, launch plans; and float32 replays of the realizations' orders of operations that show the
tolerance separates the accurate forms from the cautionary one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from float32_replays import sum_sumsq, two_pass, welford

import epldb
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.launch import contract_arrays, plan_env, resolve_plan

C = get_contract("row-moments")
F = np.float32


def point(dtype: str = "float32") -> dict:
    return {"dtype": dtype}


def test_registered_under_its_name_and_named_by_the_primitive() -> None:
    assert REGISTRY["row-moments"] is type(C)
    cat = epldb.load(lint=False)
    assert cat.primitives["mergeable-statistics"].contract == "row-moments"


@pytest.mark.parametrize("dtype, kappa_lo, kappa_hi", [("float32", 400.0, 1e4), ("bfloat16", 7.0, 70.0)])
def test_inputs_have_mean_far_above_std_never_zero_and_still_vary(dtype: str, kappa_lo: float, kappa_hi: float) -> None:
    shape = {"rows": 64, "cols": 1031}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    b = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 2))["x"]
    assert a.shape == (64, 1031) and a.flags.c_contiguous
    assert a.dtype == (np.uint16 if dtype == "bfloat16" else np.float32)
    assert not np.array_equal(a, b)
    x = to_float64(a, dtype)
    assert np.all(x != 0) and np.all(np.isfinite(x))
    mean, std = x.mean(axis=1), x.std(axis=1)
    kappa = np.abs(mean) / std
    assert kappa.min() > kappa_lo and kappa.max() < kappa_hi
    assert np.all((std > 0.9) & (std < 2.2))  # every row's variance is of one size: normwise error is per row
    assert 0.2 < np.mean(mean > 0) < 0.8  # both signs
    assert min(len(np.unique(r)) for r in x) >= 8  # bf16 rows still vary
    assert C.shape_of({"x": a}, point(dtype)) == shape


def test_float32_inputs_reach_the_cancellation_regime() -> None:
    x = to_float64(C.make_inputs({"rows": 256, "cols": 64}, "float32", point(), make_rng(np, 3))["x"], "float32")
    ratio = x.mean(axis=1) ** 2 / x.var(axis=1)
    assert ratio.max() > 2.0**24  # where E[x^2] - E[x]^2 in float32 is pure rounding noise


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 7, "cols": 4097}])
def test_reference_is_the_float64_mean_and_population_variance(shape: dict) -> None:
    x = C.make_inputs(shape, "float32", point(), make_rng(np, shape["cols"]))
    ref = C.reference(x, shape, point())
    rows = x["x"].astype(np.float64)
    for r, row in enumerate(rows):
        m = math.fsum(row) / row.size
        v = math.fsum((e - m) ** 2 for e in row) / row.size
        assert ref["mean"][r] == pytest.approx(m, rel=1e-15)
        assert ref["var"][r] == pytest.approx(v, rel=1e-9, abs=1e-12)
    assert ref["mean"].dtype == np.float64 and ref["var"].shape == (shape["rows"],)
    specs = [(s.name, s.dtype, s.count) for s in C.outputs(shape, point())]
    assert specs == [("mean", "float32", shape["rows"]), ("var", "float32", shape["rows"])]
    if shape["cols"] == 1:
        assert ref["var"][0] == 0.0


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([[32.0, 32.1, 33.0, 30.5]]), "bfloat16")}  # 32.1 is 32.0 in bf16
    ref = C.reference(x, {"rows": 1, "cols": 4}, point("bfloat16"))
    assert ref["mean"].tolist() == [31.875]  # (32 + 32 + 33 + 30.5) / 4
    assert ref["var"].tolist() == [0.796875]  # (0.125^2 + 0.125^2 + 1.125^2 + 1.375^2) / 4


@pytest.mark.parametrize("dtype, shape, expected", [
    ("float32", {"rows": 262_144, "cols": 256}, (256 << 20) + 262_144 * 8),
    ("bfloat16", {"rows": 128, "cols": 262_144}, (64 << 20) + 128 * 8),
    ("float32", {"rows": 7, "cols": 4097}, 7 * 4097 * 4 + 7 * 8),
])
def test_bytes_moved_is_one_read_plus_two_floats_per_row(dtype: str, shape: dict, expected: int) -> None:
    assert C.bytes_moved(shape, point(dtype)) == expected
    assert C.flops(shape, point(dtype)) == 3 * shape["rows"] * shape["cols"]


def test_verification_and_bench_shapes() -> None:
    shapes = [(s["rows"], s["cols"]) for s in C.verify_shapes]
    assert shapes[:5] == [(1, 1), (3, 31), (7, 4097), (1031, 257), (5, 100_003)]
    assert any(c % 8 == 0 for _, c in shapes) and any(c % 4 for _, c in shapes)  # both load paths
    assert max(r * c for r, c in shapes) * 4 > 4 * 60_000_000  # beyond the H200's L2
    full = [(s["rows"], s["cols"]) for s in C.bench_shapes(quick=False)]
    assert full == [(262_144, 256), (32_768, 1024), (16_384, 4096), (4096, 16_384), (1024, 65_536), (128, 262_144)]
    assert all(s in C.bench_shapes(quick=False) for s in C.bench_shapes(quick=True))
    assert max(c for _, c in shapes + full) < 2**24  # welford-chan's float32 counts stay exact


def test_peers_and_their_problem_key() -> None:
    assert [p.name for p in C.peers()] == ["torch-eager", "torch-compile", "cupy"]
    assert C.peer_params({"dtype": "bfloat16", "block": 256, "unroll": 4, "shift": True}) == {"dtype": "bfloat16"}
    try:
        import cupy  # noqa: F401
    except ImportError:
        for peer in C.peers():
            assert isinstance(peer.prepare(C, {"rows": 3, "cols": 31}, point()), str)


@pytest.mark.parametrize("rid", ["two-pass", "naive-sum-sumsq", "welford-chan"])
def test_every_row_gets_one_block(rid: str) -> None:
    cat = epldb.load(lint=False)
    r = cat.realizations[f"mergeable-statistics/{rid}"]
    for shape in (*C.verify_shapes, *C.bench_shapes(quick=False)):
        for p in r.points():
            plan = resolve_plan(r, plan_env(shape, p), contract_arrays(C))
            assert plan.ok, [pr.message for pr in plan.problems]
            assert plan.steps[0].grid[0] == shape["rows"] and plan.steps[0].block[0] == p["block"]
            assert [a.name for a in plan.steps[0].args[:3]] == ["x", "mean", "var"]


# --- float32 replays of the realizations' orders (tests/contracts/float32_replays.py) -------------


def _error(got: tuple, ref: dict) -> float:
    return max(float(np.abs(g.astype(np.float64) - ref[k]).max() / np.abs(ref[k]).max())
               for g, k in zip(got, ("mean", "var")))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_tolerance_passes_the_accurate_orders_and_fails_the_naive_one(dtype: str) -> None:
    tol = C.tolerance_for(point(dtype)).max_rel
    for shape, lanes in (({"rows": 33, "cols": 8}, 128), ({"rows": 64, "cols": 256}, 64), ({"rows": 4, "cols": 8192}, 256)):
        x = C.make_inputs(shape, dtype, point(dtype), make_rng(np, shape["cols"]))
        ref = C.reference(x, shape, point(dtype))
        xf = to_float64(x["x"], dtype).astype(F)
        assert _error(two_pass(xf, lanes), ref) < tol / 20
        assert _error(welford(xf, lanes, 4, shift=True), ref) < tol / 20
        assert _error(welford(xf, lanes, 4, shift=False), ref) < tol / 2
        if dtype == "float32":
            assert _error(sum_sumsq(xf, lanes), ref) > 100 * tol  # noise: the cautionary realization fails
