"""The warp-tile-reduce contract on the CPU: inputs, references (float64 and exact int32), sizes,
bytes, tolerances, peers, and the records that use it."""

from __future__ import annotations

import numpy as np
import pytest

import epldb
from epldb.contracts import get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.warp_tile_reduce import INT_INPUT_BOUND, INT_MAX_TILE, wrap_int32
from epldb.launch import contract_arrays, plan_env, resolve_plan

C = get_contract("warp-tile-reduce")


def point(dtype: str = "float32", op: str = "sum", block: int = 256, items: int = 4) -> dict:
    return {"block": block, "items": items, "dtype": dtype, "op": op}


def test_tile_is_one_warp_of_items_and_independent_of_the_block() -> None:
    assert C.tile(point(items=1)) == 32 and C.tile(point(items=16)) == 512
    assert C.tiles({"n": 4097}, point(block=128)) == C.tiles({"n": 4097}, point(block=1024)) == 33


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32"])
def test_inputs_are_fresh_never_zero_and_both_signs(dtype: str) -> None:
    shape = {"n": 100_003}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    b = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 2))["x"]
    storage = {"float32": np.float32, "bfloat16": np.uint16, "int32": np.int32}[dtype]
    assert a.size == shape["n"] and a.dtype == storage
    values = to_float64(a, dtype)
    assert np.all(values != 0) and np.all(np.isfinite(values))
    assert 0.45 < np.mean(values > 0) < 0.55
    assert np.abs(values).max() / np.abs(values).min() > 2.0**14  # wide dynamic range
    assert not np.array_equal(a, b)


def test_int_inputs_stay_below_the_bound_that_keeps_tile_sums_exact() -> None:
    x = C.make_inputs({"n": 1_000_000}, "int32", point("int32"), make_rng(np, 3))["x"]
    assert np.abs(x.astype(np.int64)).max() < INT_INPUT_BOUND
    assert np.abs(x.astype(np.int64)).min() >= 2  # never -1: the poisoned int32 output reads -1
    # The widest declared tile (items 16: 512 elements) and far beyond cannot reach 2^31.
    assert INT_MAX_TILE >= 2048 and INT_MAX_TILE * (INT_INPUT_BOUND - 1) < 2**31


@pytest.mark.parametrize("n", [1, 31, 32, 33, 4097])
@pytest.mark.parametrize("op", ["sum", "max"])
@pytest.mark.parametrize("items", [1, 4])
def test_float_reference_reduces_every_warp_tile_the_last_one_ragged(n: int, op: str, items: int) -> None:
    p = point(op=op, items=items)
    x = C.make_inputs({"n": n}, "float32", p, make_rng(np, n))
    ref = C.reference(x, {"n": n}, p)["partials"]
    tile = 32 * items
    xs = x["x"].astype(np.float64)
    expected = [(xs[i : i + tile].sum() if op == "sum" else xs[i : i + tile].max()) for i in range(0, n, tile)]
    assert ref.dtype == np.float64
    np.testing.assert_array_equal(ref, expected)
    assert [(s.name, s.dtype, s.count) for s in C.outputs({"n": n}, p)] == [("partials", "float32", len(expected))]


@pytest.mark.parametrize("op", ["sum", "max"])
def test_int_reference_is_the_exact_integer_reduction(op: str) -> None:
    p = point("int32", op, items=2)
    n = 1000
    x = C.make_inputs({"n": n}, "int32", p, make_rng(np, 7))
    ref = C.reference(x, {"n": n}, p)["partials"]
    xs = [int(v) for v in x["x"]]
    expected = [(sum(xs[i : i + 64]) if op == "sum" else max(xs[i : i + 64])) for i in range(0, n, 64)]
    assert ref.tolist() == expected
    assert [(s.dtype, s.count) for s in C.outputs({"n": n}, p)] == [("int32", len(expected))]
    assert C.tolerance_for(p).max_rel == 0.0 and C.tolerance_for(p).rel_l2 == 0.0


def test_int_sum_wraps_modulo_two_to_the_32_like_the_adder() -> None:
    p = point("int32", "sum", items=1)
    x = {"x": np.array([2**31 - 1, 1, -(2**31), -1], dtype=np.int32)}
    # Tile 0: INT32_MAX + 1 wraps to INT32_MIN; tile 0 holds all four: (2^31-1+1-2^31-1) = -1.
    assert C.reference(x, {"n": 4}, p)["partials"].tolist() == [-1.0]
    x2 = {"x": np.full(32, 2**30, dtype=np.int32)}  # 32 * 2^30 = 2^35 ≡ 0 mod 2^32
    assert C.reference(x2, {"n": 32}, p)["partials"].tolist() == [0.0]
    np.testing.assert_array_equal(wrap_int32(np.array([2**31, -(2**31) - 1, 5])), [-(2**31), 2**31 - 1, 5])


def test_int_max_pads_the_ragged_tile_with_int32_min_not_zero() -> None:
    p = point("int32", "max", items=1)
    x = {"x": np.array([-5, -3, -9], dtype=np.int32)}  # one ragged tile of all-negative values
    assert C.reference(x, {"n": 3}, p)["partials"].tolist() == [-3.0]


def test_bfloat16_reference_uses_the_exact_stored_values() -> None:
    p = point("bfloat16", items=1)
    x = {"x": from_float64(np.array([1.0, 2**-8, 3.0]), "bfloat16")}
    assert C.reference(x, {"n": 3}, p)["partials"].tolist() == [1.0 + 2**-8 + 3.0]


@pytest.mark.parametrize("dtype, items, n, expected", [
    ("float32", 4, 4097, 4097 * 4 + 33 * 4),  # read n*4, write ceil(4097/128) partials of 4 bytes
    ("bfloat16", 16, 4097, 4097 * 2 + 9 * 4),
    ("int32", 1, 1 << 26, (1 << 28) + (1 << 21) * 4),
])
def test_bytes_moved_is_read_once_plus_one_partial_per_warp_tile(dtype: str, items: int, n: int, expected: int) -> None:
    p = point(dtype, items=items)
    assert C.bytes_moved({"n": n}, p) == expected
    assert C.flops({"n": n}, p) == n - -(-n // (32 * items))


def test_shapes_are_those_of_the_block_contract() -> None:
    block = get_contract("block-tile-reduce")
    assert C.verify_shapes == block.verify_shapes
    assert C.bench_shapes(quick=False) == block.bench_shapes(quick=False)


def test_peers_and_their_problem_key() -> None:
    assert [p.name for p in C.peers()] == ["torch-eager", "torch-compile", "cupy"]
    assert C.peer_params(point("int32", "max", 512, 8)) == {"dtype": "int32", "op": "max", "tile": 256}
    # Without CuPy or PyTorch, peers say why instead of raising (int32 too): tests/contracts/test_peers.py.


def test_launch_plan_gives_every_warp_tile_a_warp() -> None:
    cat = epldb.load(lint=False)
    for rid in ("warp-reduce/shfl-down", "warp-reduce/redux-sync"):
        r = cat.realizations[rid]
        for items in r.params["items"]:
            p = {**point(str(r.params["dtype"][0]), items=int(items))}
            for n in (1, 31, 4097, 1_000_003, 50_000_017):
                plan = resolve_plan(r, plan_env({"n": n}, p), contract_arrays(C))
                assert plan.ok, plan.problems
                (step,) = plan.steps
                warps = step.grid[0] * step.block[0] // 32
                assert warps >= C.tiles({"n": n}, p) > warps - step.block[0] // 32


def test_catalog_uses_the_contract_for_warp_reduce_with_the_dtypes_it_covers() -> None:
    cat = epldb.load(lint=False)
    assert cat.primitives["warp-reduce"].contract == "warp-tile-reduce"
    mine = cat.realizations_of("warp-reduce")
    assert {r.id for r in mine} >= {"warp-reduce/shfl-down", "warp-reduce/butterfly", "warp-reduce/smem-tree",
                                    "warp-reduce/redux-sync"}
    for r in mine:
        assert set(C.required_params) <= set(r.params), r.id
        assert all(d in C.tolerance for d in r.params["dtype"]), r.id
    assert tuple(cat.realizations["warp-reduce/redux-sync"].params["dtype"]) == ("int32",)  # REDUX: integers only
