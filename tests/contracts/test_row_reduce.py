"""The row-reduce contract on the CPU: inputs, reference, shapes, bytes, tolerances, peers."""

from __future__ import annotations

import math

import numpy as np
import pytest

import epldb
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.launch import contract_arrays, plan_env, resolve_plan

C = get_contract("row-reduce")


def point(dtype: str = "float32", op: str = "sum") -> dict:
    return {"dtype": dtype, "op": op}


def test_registered_under_its_name_and_named_by_the_primitive() -> None:
    assert REGISTRY["row-reduce"] is type(C)
    cat = epldb.load(lint=False)
    assert cat.primitives["segmented-row-reduce"].contract == "row-reduce"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inputs_are_2d_fresh_never_zero_and_wide(dtype: str) -> None:
    shape = {"rows": 31, "cols": 1031}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    b = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 2))["x"]
    assert a.shape == (31, 1031) and a.flags.c_contiguous
    assert a.dtype == (np.uint16 if dtype == "bfloat16" else np.float32)
    values = to_float64(a, dtype)
    assert np.all(values != 0) and np.all(np.isfinite(values))
    mags = np.abs(values)
    assert mags.max() / mags.min() > 2.0**14
    assert 0.45 < np.mean(values > 0) < 0.55
    assert not np.array_equal(a, b)
    assert C.shape_of({"x": a}, point(dtype)) == shape


def test_a_one_dimensional_input_is_one_row() -> None:
    assert C.shape_of({"x": np.zeros(17, np.float32)}, point()) == {"rows": 1, "cols": 17}


@pytest.mark.parametrize("shape", [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 31}, {"rows": 7, "cols": 4097}])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reference_reduces_every_row_in_float64(shape: dict, op: str) -> None:
    x = C.make_inputs(shape, "float32", point(op=op), make_rng(np, shape["cols"]))
    ref = C.reference(x, shape, point(op=op))["out"]
    rows = x["x"].astype(np.float64)
    expected = [math.fsum(r) if op == "sum" else max(r) for r in rows]
    assert ref.dtype == np.float64 and ref.shape == (shape["rows"],)
    np.testing.assert_allclose(ref, expected, rtol=1e-15, atol=0)
    assert [(s.name, s.dtype, s.count) for s in C.outputs(shape, point(op=op))] == [("out", "float32", shape["rows"])]


def test_reference_uses_the_exact_bfloat16_values() -> None:
    x = {"x": from_float64(np.array([[1.0, 2**-8, 3.0], [-2.5, 301.0, 0.5]]), "bfloat16")}
    shape = {"rows": 2, "cols": 3}
    assert C.reference(x, shape, point("bfloat16"))["out"].tolist() == [1.0 + 2**-8 + 3.0, -2.5 + 300.0 + 0.5]
    assert C.reference(x, shape, point("bfloat16", "max"))["out"].tolist() == [3.0, 300.0]


@pytest.mark.parametrize("dtype, shape, expected", [
    ("float32", {"rows": 262_144, "cols": 256}, (256 << 20) + 262_144 * 4),
    ("bfloat16", {"rows": 128, "cols": 262_144}, (64 << 20) + 128 * 4),
    ("float32", {"rows": 7, "cols": 4097}, 7 * 4097 * 4 + 7 * 4),
])
def test_bytes_moved_is_one_read_plus_one_float_per_row(dtype: str, shape: dict, expected: int) -> None:
    assert C.bytes_moved(shape, point(dtype)) == expected
    assert C.flops(shape, point(dtype)) == shape["rows"] * (shape["cols"] - 1)


def test_verification_shapes_are_odd_aligned_and_large() -> None:
    shapes = [(s["rows"], s["cols"]) for s in C.verify_shapes]
    assert shapes[:5] == [(1, 1), (3, 31), (7, 4097), (1031, 257), (5, 100_003)]
    # Both load paths: rows that are not 16-byte aligned in either dtype, and rows that are.
    assert any(c % 8 == 0 for _, c in shapes) and any(c % 4 for _, c in shapes)
    # Vector counts ragged against every lane count (4..512) on some aligned shape.
    assert any(c % 8 == 0 and (c // 8) % 4 for _, c in shapes)
    assert max(r * c for r, c in shapes) * 4 > 4 * 60_000_000  # larger than 4x the H200's L2 in fp32
    assert all(r % 8 for r, c in shapes if r > 1)  # the last block's row groups are ragged


def test_bench_shapes_are_the_issue_row_shapes() -> None:
    full = [(s["rows"], s["cols"]) for s in C.bench_shapes(quick=False)]
    assert full == [(262_144, 256), (32_768, 1024), (16_384, 4096), (4096, 16_384), (1024, 65_536), (128, 262_144)]
    # 64 Mi elements, except 32768x1024 and 128x262144 (32 Mi): the issue's shapes as written.
    assert [r * c >> 20 for r, c in full] == [64, 32, 64, 64, 64, 32]
    assert all(s in C.bench_shapes(quick=False) for s in C.bench_shapes(quick=True))
    assert len(C.bench_shapes(quick=True)) < len(full)


def _fold_in_lanes_float32(row: np.ndarray, lanes: int) -> np.float32:
    """The worst order the realizations use: each lane a sequential float32 chain over every
    lanes-th element, then a float32 tree over the lanes."""
    pad = (-row.size) % lanes
    m = np.concatenate([row, np.zeros(pad, np.float32)]).reshape(-1, lanes)
    acc = np.zeros(lanes, np.float32)
    for k in range(m.shape[0]):
        acc = acc + m[k]
    while acc.size > 1:
        acc = acc[: acc.size // 2] + acc[acc.size // 2 :]
    return acc[0]


def test_tolerance_holds_for_float32_accumulation_in_the_worst_order() -> None:
    shape = {"rows": 5, "cols": 100_003}
    tol = C.tolerance_for(point())
    for seed in range(3):
        x = C.make_inputs(shape, "float32", point(), make_rng(np, seed))
        ref = C.reference(x, shape, point())["out"]
        got = np.array([_fold_in_lanes_float32(r, 4) for r in x["x"]], np.float64)
        err = np.abs(got - ref).max() / np.abs(ref).max()
        assert err < tol.max_rel / 4, err
    # ... and a lost element of typical size in the longest verified rows is still caught.
    big = {"rows": 4, "cols": 65_544}
    x = C.make_inputs(big, "float32", point(), make_rng(np, 9))
    ref = C.reference(x, big, point())["out"]
    lost = ref.copy()
    lost[0] -= 8.0
    assert np.abs(lost - ref).max() / np.abs(ref).max() > tol.max_rel


def test_peers_and_their_problem_key() -> None:
    assert [p.name for p in C.peers()] == ["torch-eager", "torch-compile", "cupy"]
    assert C.peer_params({"dtype": "bfloat16", "op": "max", "block": 256, "group": 8}) == {"dtype": "bfloat16", "op": "max"}
    # Without CuPy or PyTorch, peers say why instead of raising: tests/contracts/test_peers.py.


ROWS_PER_BLOCK = {
    "warp-per-row": lambda p: p["block"] // 32,
    "rows-per-block": lambda p: p["block"] // p["group"],
    "block-per-row": lambda p: 1,
}


@pytest.mark.parametrize("rid", sorted(ROWS_PER_BLOCK))
def test_every_row_gets_a_group_at_every_verify_and_bench_shape(rid: str) -> None:
    cat = epldb.load(lint=False)
    r = cat.realizations[f"segmented-row-reduce/{rid}"]
    for shape in (*C.verify_shapes, *C.bench_shapes(quick=False)):
        for p in r.points():
            plan = resolve_plan(r, plan_env(shape, p), contract_arrays(C))
            assert plan.ok, [pr.message for pr in plan.problems]
            per_block = ROWS_PER_BLOCK[rid](p)
            grid = plan.steps[0].grid[0]
            assert (grid - 1) * per_block < shape["rows"] <= grid * per_block  # no block without a row


def test_split_row_scratch_holds_one_partial_per_slice() -> None:
    cat = epldb.load(lint=False)
    r = cat.realizations["segmented-row-reduce/split-row"]
    shape = {"rows": 128, "cols": 262_144}
    p = {"block": 256, "chunk": 8192, "unroll": 4, "dtype": "float32", "op": "sum"}
    plan = resolve_plan(r, plan_env(shape, p), contract_arrays(C))
    assert plan.ok
    (scratch,) = plan.scratch
    assert scratch.count == 128 * 32 == plan.steps[0].grid[0]
    assert plan.steps[1].grid[0] == 16 and [a.value for a in plan.steps[1].args[2:]] == [128, 32]


def test_cluster_split_row_gives_each_row_one_whole_cluster() -> None:
    cat = epldb.load(lint=False)
    r = cat.realizations["segmented-row-reduce/cluster-split-row"]
    assert set(r.targets) <= {"sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"}  # clusters need sm_90
    for shape in (*C.verify_shapes, *C.bench_shapes(quick=False)):
        for p in r.points():
            plan = resolve_plan(r, plan_env(shape, p), contract_arrays(C))
            assert plan.ok, [pr.message for pr in plan.problems]
            assert plan.steps[0].grid[0] == shape["rows"] * p["cluster_blocks"]
            assert plan.steps[0].cluster is None  # compiled in (__cluster_dims__), not planned
