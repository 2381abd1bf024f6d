"""The block-tile-reduce contract on the CPU: inputs, reference, sizes, bytes, tolerances, peers."""

from __future__ import annotations

import numpy as np
import pytest

import epldb
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import from_float64, itemsize, to_float64

C = get_contract("block-tile-reduce")


def point(dtype: str = "float32", op: str = "sum", block: int = 256, items: int = 4) -> dict:
    return {"block": block, "items": items, "dtype": dtype, "op": op}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inputs_are_fresh_never_zero_and_wide(dtype: str) -> None:
    shape = {"n": 100_003}
    a = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 1))["x"]
    b = C.make_inputs(shape, dtype, point(dtype), make_rng(np, 2))["x"]
    assert a.size == shape["n"] and a.dtype == (np.uint16 if dtype == "bfloat16" else np.float32)
    values = to_float64(a, dtype)
    assert np.all(values != 0) and np.all(np.isfinite(values))
    mags = np.abs(values)
    assert mags.max() / mags.min() > 2.0**14  # log-uniform over 2^-8 .. 2^8
    assert 0.45 < np.mean(values > 0) < 0.55  # both signs
    assert not np.array_equal(a, b)  # a new seed gives new data


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(("n", "block", "items"), [(4097, 512, 8), (1_000_003, 32, 1), (31, 256, 4), (50_017, 64, 2)])
def test_no_tile_cancels_below_a_third_of_its_absolute_sum(dtype: str, n: int, block: int, items: int) -> None:
    """A tile's float32 rounding error is a fraction of its sum|x|: the tolerance, relative to |ref|,
    means something only while |ref| cannot be tiny against sum|x| (the H200 once failed a correct
    smem-atomics sum at bf16 n = 4097 on an unlucky draw of independent signs)."""
    for seed in range(20):
        x = to_float64(C.make_inputs({"n": n}, dtype, point(dtype, block=block, items=items), make_rng(np, seed))["x"], dtype)
        tile = block * items
        padded = np.zeros(-(-n // tile) * tile)
        padded[:n] = x
        tiles = padded.reshape(-1, tile)
        assert np.all(np.abs(tiles.sum(axis=1)) >= np.abs(tiles).sum(axis=1) / 3 * (1 - 2.0**-7))


def test_bfloat16_rounds_to_nearest_even_and_widens_exactly() -> None:
    # 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties go to the even mantissa (1.0);
    # 1 + 3*2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
    x = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, -2.5, 301.0])
    bits = from_float64(x, "bfloat16")
    assert bits.dtype == np.uint16
    np.testing.assert_array_equal(to_float64(bits, "bfloat16"), [1.0, 1.0, 1 + 2**-6, -2.5, 300.0])
    assert bits[0] == 0x3F80


@pytest.mark.parametrize("n", [1, 31, 1024, 4097])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reference_reduces_every_tile_the_last_one_ragged(n: int, op: str) -> None:
    p = point(op=op)
    x = C.make_inputs({"n": n}, "float32", p, make_rng(np, n))
    ref = C.reference(x, {"n": n}, p)["partials"]
    tile = 1024
    xs = x["x"].astype(np.float64)
    expected = [(xs[i : i + tile].sum() if op == "sum" else xs[i : i + tile].max()) for i in range(0, n, tile)]
    assert ref.dtype == np.float64
    np.testing.assert_array_equal(ref, expected)
    assert [s.count for s in C.outputs({"n": n}, p)] == [len(expected)]


def test_reference_uses_the_exact_bfloat16_values() -> None:
    p = point("bfloat16", block=128, items=1)
    x = {"x": from_float64(np.array([1.0, 2**-8, 3.0]), "bfloat16")}
    assert C.reference(x, {"n": 3}, p)["partials"].tolist() == [1.0 + 2**-8 + 3.0]


@pytest.mark.parametrize("dtype, n, expected", [
    ("float32", 4097, 4097 * 4 + 5 * 4),  # read n*4, write ceil(4097/1024) partials of 4 bytes
    ("bfloat16", 4097, 4097 * 2 + 5 * 4),
    ("float32", 1 << 28, (1 << 30) + (1 << 18) * 4),
])
def test_bytes_moved_is_read_once_plus_one_float_per_tile(dtype: str, n: int, expected: int) -> None:
    assert C.bytes_moved({"n": n}, point(dtype)) == expected
    assert C.flops({"n": n}, point(dtype)) == n - -(-n // 1024)


def test_shapes_are_multiples_of_nothing_and_bench_goes_past_a_gibibyte() -> None:
    ns = [s["n"] for s in C.verify_shapes]
    assert ns[:3] == [1, 31, 4097] and max(ns) >= 50_000_000
    for n in ns[1:]:
        assert all(n % t for t in (128, 256, 512, 1024, 2048, 4096, 8192)), n
    full = [s["n"] for s in C.bench_shapes(quick=False)]
    assert max(full) * 4 >= 1 << 30 and min(full) <= 1 << 20
    assert any(n % 2 for n in full)  # a ragged, prime-ish size at bandwidth scale
    assert len(C.bench_shapes(quick=True)) < len(full)


def test_peers_and_their_problem_key() -> None:
    assert [p.name for p in C.peers()] == ["torch-eager", "torch-compile", "cupy"]
    assert C.peer_params(point("bfloat16", "max", 512, 8)) == {"dtype": "bfloat16", "op": "max", "tile": 4096}
    # Without CuPy or PyTorch, peers say why instead of raising: tests/contracts/test_peers.py.


def test_every_contract_named_in_the_catalog_exists_and_covers_its_dtypes() -> None:
    cat = epldb.load(lint=False)
    named = {p.contract for p in cat.primitives.values() if p.contract}
    assert named <= set(REGISTRY), named - set(REGISTRY)
    for r in cat.realizations.values():
        contract = get_contract(cat.contract_name_of(r))
        if contract is None:
            continue
        # the dtype each point computes in, as the contract reads it (a gemm point names none: bf16)
        for dtype in {contract.dtype_of(point) for point in r.points()}:
            assert dtype in contract.tolerance, (r.id, dtype)
            assert itemsize(str(dtype)) > 0
        assert set(contract.required_params) <= set(r.params), r.id


def test_registry_lookup() -> None:
    assert get_contract(None) is None and get_contract("no-such-contract") is None
    assert get_contract("block-tile-reduce") is C
