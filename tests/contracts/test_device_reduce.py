"""The device-reduce contract on the CPU (inputs, reference, sizes, bytes, tolerances, peers, plans);
on the GPU, the vector path's scalar head with inputs that are not 16-byte aligned."""

from __future__ import annotations

import numpy as np
import pytest

import epldb
from repository import repository_catalog
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.device_reduce import paired_values
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.launch import contract_arrays, plan_env, resolve_plan

C = get_contract("device-reduce")
CATALOG = repository_catalog()
#: Generated from the catalog, never listed by hand.
REALIZATIONS = sorted(r.id for r in CATALOG.realizations.values() if r.primitive == "device-reduce")


def point(dtype: str = "float32", op: str = "sum") -> dict:
    return {"dtype": dtype, "op": op}


def test_registered_and_named_by_the_primitive() -> None:
    assert REGISTRY["device-reduce"] is type(C)
    assert CATALOG.primitives["device-reduce"].contract == "device-reduce"
    assert REALIZATIONS, "no device-reduce realization in the catalog"


@pytest.mark.parametrize("n", [1, 2, 31, 4097, 100_003])
@pytest.mark.parametrize("seed", range(8))
def test_paired_inputs_never_cancel_below_a_third(n: int, seed: int) -> None:
    v = paired_values(make_rng(np, seed), n)
    assert v.shape == (n,) and np.all(v != 0) and np.all(np.isfinite(v))
    assert abs(v.sum()) >= np.abs(v).sum() / 3
    if n > 1:
        assert (v > 0).any() and (v < 0).any()  # both signs in every instance


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inputs_fresh_wide_and_both_signs_after_rounding(dtype: str) -> None:
    shape = {"n": 100_001}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    b = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 2))["x"]
    assert a.size == shape["n"] and a.dtype == (np.uint16 if dtype == "bfloat16" else np.float32)
    v = to_float64(a, dtype)
    assert np.all(v != 0) and np.all(np.isfinite(v))
    mags = np.abs(v)
    assert mags.max() / mags.min() > 2.0**20  # 2^-16 .. 2^8
    assert abs(v.sum()) >= 0.33 * mags.sum()  # the rounded values keep the bound (up to 2^-8)
    assert not np.array_equal(a, b)


def test_the_sign_is_drawn_per_instance_so_max_is_sometimes_negative() -> None:
    # n = 1: the single element carries the instance's sign; over 40 draws both signs appear.
    signs = {float(np.sign(paired_values(make_rng(np, s), 1)[0])) for s in range(40)}
    assert signs == {-1.0, 1.0}


@pytest.mark.parametrize("n", [1, 31, 4097])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_reference_is_the_float64_sum_and_max_of_the_exact_values(n: int, dtype: str) -> None:
    x = C.make_inputs({"n": n}, dtype, point(dtype), make_rng(np, n))
    exact = to_float64(x["x"], dtype)
    s = C.reference(x, {"n": n}, point(dtype, "sum"))["out"]
    m = C.reference(x, {"n": n}, point(dtype, "max"))["out"]
    assert s.dtype == np.float64 and s.shape == (1,) and m.shape == (1,)
    assert s[0] == pytest.approx(float(np.sum(exact)), rel=1e-15)
    assert m[0] == exact.max()
    assert [(o.name, o.dtype, o.count) for o in C.outputs({"n": n}, point(dtype))] == [("out", "float32", 1)]


def test_reference_uses_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([1.0, 2.0**-8, 3.0]), "bfloat16")}
    assert C.reference(x, {"n": 3}, point("bfloat16"))["out"].tolist() == [4.0 + 2.0**-8]
    assert C.reference(x, {"n": 3}, point("bfloat16", "max"))["out"].tolist() == [3.0]


@pytest.mark.parametrize("dtype, n, expected", [
    ("float32", 1, 4 + 4),
    ("float32", 1 << 28, (1 << 30) + 4),  # read once, write one float
    ("bfloat16", 1 << 29, (1 << 30) + 4),
])
def test_bytes_moved_is_one_read_and_one_float(dtype: str, n: int, expected: int) -> None:
    assert C.bytes_moved({"n": n}, point(dtype)) == expected
    assert C.flops({"n": n}, point(dtype)) == n - 1


def test_shapes_odd_small_and_large_bench_reaches_a_gibibyte_of_each_dtype() -> None:
    ns = [s["n"] for s in C.verify_shapes]
    assert ns[:3] == [1, 31, 4097] and max(ns) >= 50_000_000
    assert all(n % 2 for n in ns)  # odd: every vector path has a tail
    full = [s["n"] for s in C.bench_shapes(quick=False)]
    assert min(full) <= 1 << 20
    assert (1 << 28) in full and (1 << 29) in full  # 1 GiB of fp32, 1 GiB of bf16
    assert any(n % 2 for n in full)
    assert all(n < 2**31 for n in full + ns)  # kernels take int n


def test_tolerance_covers_the_dtypes_and_peers_say_why_they_skip() -> None:
    assert set(C.tolerance) == {"float32", "bfloat16"}
    assert [p.name for p in C.peers()] == ["torch-eager", "torch-compile", "cupy"]
    assert C.peer_params({"block": 256, "dtype": "bfloat16", "op": "max", "unroll": 4}) == {"dtype": "bfloat16", "op": "max"}
    # Without CuPy (or for bf16 with it) a peer says why instead of raising.
    assert isinstance(C.peers()[2].prepare(C, {"n": 31}, point("bfloat16")), str)


@pytest.mark.parametrize("rid", REALIZATIONS)
def test_plans_resolve_at_every_point_and_shape(rid: str) -> None:
    r = CATALOG.realizations[rid]
    shapes = list(C.verify_shapes) + list(C.bench_shapes(quick=False))
    for shape in shapes:
        for p in r.points():
            plan = resolve_plan(r, plan_env(shape, p), contract_arrays(C))
            assert plan.ok, (rid, shape, p, [x.message for x in plan.problems])
            (reads_x,) = [st for st in plan.steps if any(getattr(a, "name", "") == "x" for a in st.args)]
            assert 1 <= reads_x.grid[0] <= max(8, shape["n"] // 16)  # at most one block per 16 elements (or one cluster)
            if "cluster_blocks" in p:  # __cluster_dims__ needs a whole number of clusters
                assert reads_x.grid[0] % int(p["cluster_blocks"]) == 0


# --- GPU ---------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("offset", [1, 3])
def test_vector_path_accepts_inputs_that_are_not_16_byte_aligned(dtype: str, offset: int) -> None:
    import cupy

    n = 100_003
    base = C.make_inputs({"n": n + offset}, dtype, point(dtype), make_rng(cupy, 7 + offset), cupy)["x"]
    x = base[offset:]  # contiguous, but offset * sizeof(T) bytes past a 256-byte boundary
    assert x.data.ptr % 16 != 0
    exact = to_float64(cupy.asnumpy(x), dtype)
    for op in ("sum", "max"):
        out = epldb.run("device-reduce/persistent-vectorized", x, dtype=dtype, op=op)
        ref = exact.sum() if op == "sum" else exact.max()
        got = float(cupy.asnumpy(out)[0])
        assert abs(got - ref) <= 1e-4 * abs(ref), (op, got, ref)
