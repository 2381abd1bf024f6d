"""What the five row-operator contracts (row-log-softmax, row-logsumexp, row-cross-entropy,
row-rmsnorm, row-layernorm) state alike, checked on the CPU from one table: registration and the
operator record naming them, input and output arrays (names, dtypes, counts, storage), fresh
inputs per seed, bytes and ceiling, the float scalars a launch plan may pass, shapes, peers, and the
kernel argument order every realization of the operator passes, and that every row gets its
group of threads. Each contract's own file tests its reference, inputs and tolerance."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

import epldb
from repository import repository_catalog
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.dtypes import itemsize, storage_dtype
from epldb.launch import LaunchLimits, ScalarArg, contract_arrays, plans_in_domain
from epldb.launch.plan import RESIDENT

CATALOG = repository_catalog()
STATE = get_contract("row-softmax-state")


@dataclass(frozen=True)
class Case:
    contract: str
    operator: str
    #: (name, dtype or None for the input dtype, "matrix" | "cols" | "rows")
    inputs: tuple[tuple[str, str | None, str], ...]
    outputs: tuple[tuple[str, str | None, str], ...]
    ceiling: str
    flops_per_element: int
    scalars: dict[str, float | int]
    kernel_args: tuple[str, ...]


CASES = (
    Case("row-log-softmax", "log-softmax", (("x", None, "matrix"),), (("y", None, "matrix"),), "copy", 7, {},
         ("x", "y", "rows", "cols")),
    Case("row-logsumexp", "logsumexp", (("x", None, "matrix"),), (("out", "float32", "rows"),), "read", 5, {},
         ("x", "out", "rows", "cols")),
    Case("row-cross-entropy", "cross-entropy", (("x", None, "matrix"), ("target", "int64", "rows")),
         (("loss", "float32", "rows"),), "read", 5, {"ignore_index": -100},
         ("x", "target", "loss", "rows", "cols", "ignore_index")),
    Case("row-rmsnorm", "rmsnorm", (("x", None, "matrix"), ("weight", None, "cols")), (("y", None, "matrix"),),
         "copy", 4, {"eps": 1e-6}, ("x", "weight", "y", "rows", "cols", "eps")),
    Case("row-layernorm", "layernorm", (("x", None, "matrix"), ("weight", None, "cols"), ("bias", None, "cols")),
         (("y", None, "matrix"),), "copy", 7, {"eps": 1e-5}, ("x", "weight", "bias", "y", "rows", "cols", "eps")),
)
BY_NAME = {c.contract: c for c in CASES}
DTYPES = ("float32", "bfloat16")
SHAPE = {"rows": 7, "cols": 4097}

_COUNT: dict[str, Callable[[dict[str, int]], int]] = {
    "matrix": lambda s: s["rows"] * s["cols"],
    "cols": lambda s: s["cols"],
    "rows": lambda s: s["rows"],
}


def _specs(table: tuple[tuple[str, str | None, str], ...], dtype: str, shape: dict[str, int]) -> list[tuple]:
    return [(name, d or dtype, _COUNT[per](shape)) for name, d, per in table]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_registered_and_named_by_the_operator_and_its_realizations(case: Case) -> None:
    contract = get_contract(case.contract)
    assert REGISTRY[case.contract] is type(contract) and contract.name == case.contract
    assert CATALOG.operators[case.operator].contract == case.contract
    for r in CATALOG.realizations.values():
        if r.operator == case.operator:
            assert CATALOG.contract_name_of(r) == case.contract, r.id


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_input_and_output_arrays(case: Case, dtype: str) -> None:
    c = get_contract(case.contract)
    point = {"dtype": dtype}
    assert [(s.name, s.dtype, s.count) for s in c.inputs(SHAPE, point)] == _specs(case.inputs, dtype, SHAPE)
    assert [(s.name, s.dtype, s.count) for s in c.outputs(SHAPE, point)] == _specs(case.outputs, dtype, SHAPE)
    assert c.input_names == tuple(name for name, _, _ in case.inputs)
    assert c.output_names == tuple(name for name, _, _ in case.outputs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_inputs_are_fresh_per_seed_stored_as_declared_and_give_the_shape(case: Case, dtype: str) -> None:
    c = get_contract(case.contract)
    point = {"dtype": dtype}
    shape = {"rows": 41, "cols": 1031}
    a = c.make_inputs(shape, dtype, point, make_rng(np, 1))
    again = c.make_inputs(shape, dtype, point, make_rng(np, 1))
    b = c.make_inputs(shape, dtype, point, make_rng(np, 2))
    assert list(a) == list(c.input_names)
    for spec in c.inputs(shape, point):
        arr = a[spec.name]
        assert arr.dtype == storage_dtype(spec.dtype) and arr.size == spec.count and arr.flags.c_contiguous
        assert np.array_equal(arr, again[spec.name])
    assert a["x"].shape == (41, 1031)
    assert not np.array_equal(a["x"], b["x"])
    assert c.shape_of(a, point) == shape


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["row-log-softmax", "row-logsumexp"])
def test_inputs_are_those_of_row_softmax_state(name: str, dtype: str) -> None:
    shape, point = {"rows": 41, "cols": 1031}, {"dtype": dtype}
    a = get_contract(name).make_inputs(shape, dtype, point, make_rng(np, 5))["x"]
    assert np.array_equal(a, STATE.make_inputs(shape, dtype, point, make_rng(np, 5))["x"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_bytes_moved_reads_every_input_once_and_writes_every_output_once(case: Case) -> None:
    c = get_contract(case.contract)
    assert c.ceiling == case.ceiling
    for dtype in DTYPES:
        for shape in ({"rows": 262_144, "cols": 256}, {"rows": 128, "cols": 262_144}, SHAPE):
            expected = sum(count * itemsize(d) for _, d, count in
                           _specs(case.inputs, dtype, shape) + _specs(case.outputs, dtype, shape))
            assert c.bytes_moved(shape, {"dtype": dtype}) == expected
            assert c.flops(shape, {"dtype": dtype}) == case.flops_per_element * shape["rows"] * shape["cols"]


def test_bytes_moved_examples() -> None:
    # Written out once, so the table above is not checked only against itself.
    big = {"rows": 16_384, "cols": 4096}
    f32, bf16 = {"dtype": "float32"}, {"dtype": "bfloat16"}
    assert get_contract("row-log-softmax").bytes_moved(big, bf16) == 2 * (128 << 20)
    assert get_contract("row-logsumexp").bytes_moved(big, f32) == (256 << 20) + 4 * 16_384
    assert get_contract("row-cross-entropy").bytes_moved(big, f32) == (256 << 20) + 12 * 16_384
    assert get_contract("row-rmsnorm").bytes_moved(big, f32) == 2 * (256 << 20) + 4 * 4096
    assert get_contract("row-layernorm").bytes_moved(big, bf16) == 2 * (128 << 20) + 2 * 2 * 4096


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_scalars_are_the_contracts_and_reach_launch_plans_as_float32_or_int32(case: Case) -> None:
    c = get_contract(case.contract)
    assert c.scalar_args == case.scalars
    bindings = contract_arrays(c)
    for name, value in case.scalars.items():
        if isinstance(value, int):
            assert bindings[name] == ScalarArg(value, name, "int32") and c.int_scalar(name) == value
        else:
            assert bindings[name] == ScalarArg(value, name, "float32")
            assert c.scalar(name) == float(np.float32(value)) != value  # what the kernel and the reference use


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_every_realization_of_the_operator_passes_the_documented_kernel_arguments(case: Case) -> None:
    c = get_contract(case.contract)
    doc = sys.modules[type(c).__module__].__doc__ or ""
    assert f"Kernel arguments: ``({', '.join(case.kernel_args)})``" in doc
    for r in CATALOG.realizations.values():
        if r.operator == case.operator and r.launch:
            steps = r.launch.get("steps") or []
            if len(steps) == 1:
                assert tuple(a.strip() for a in steps[0]["args"]) == case.kernel_args, r.id


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_shapes_are_the_row_shapes(case: Case) -> None:
    c = get_contract(case.contract)
    assert c.verify_shapes == STATE.verify_shapes
    assert c.bench_shapes(quick=False) == STATE.bench_shapes(quick=False)
    assert c.bench_shapes(quick=True) == STATE.bench_shapes(quick=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.contract)
def test_peers_their_problem_key_and_tolerances(case: Case) -> None:
    c = get_contract(case.contract)
    # the contract measures exactly the peers its operator record names, PyTorch's two first
    assert [p.name for p in c.peers()] == list(CATALOG.operators[case.operator].peers)
    assert [p.name for p in c.peers()][:2] == ["torch-eager", "torch-compile"]
    assert c.peer_params({"dtype": "bfloat16", "group": 32, "vecs": 4}) == {"dtype": "bfloat16"}
    for peer in c.peers():
        if peer.tolerance is None:
            continue
        assert set(peer.tolerance) == set(c.tolerance)
        assert peer.tolerance["float32"] == c.tolerance["float32"]  # only bfloat16 results are rounded
        assert peer.tolerance["bfloat16"].max_rel > c.tolerance["bfloat16"].max_rel
        assert "2^-" in peer.title  # the title says how far it is held


def rows_per_block(params: dict) -> Fraction:
    """The row operators' mappings, by their parameters: a cluster per row (``cluster`` blocks),
    ``batch * (max(group, min_block) // group)`` rows per block of ``group``-thread groups owning
    ``batch`` rows each (``min_block`` 256 unless a parameter), else a block per row."""
    if "cluster" in params:
        return Fraction(1, params["cluster"])
    if "group" in params:
        block = max(params["group"], params.get("min_block", 256))
        return Fraction(params.get("batch", 1) * (block // params["group"]))
    return Fraction(1)


ROW_OPERATORS = ("softmax", *(c.operator for c in CASES))


@pytest.mark.parametrize("rid", sorted(r.id for r in CATALOG.realizations.values() if r.operator in ROW_OPERATORS))
def test_every_row_gets_one_group_at_every_verify_and_bench_shape_in_the_domain(rid: str) -> None:
    r = CATALOG.realizations[rid]
    contract = get_contract(CATALOG.contract_name_of(r))
    resolved = 0
    for shape, p, plan in plans_in_domain(r, contract, (*contract.verify_shapes, *contract.bench_shapes(quick=False))):
        assert plan.ok, [pr.message for pr in plan.problems]
        grid, per_block = plan.steps[-1].grid[0], rows_per_block(p)
        if "grid_blocks" in p or any(RESIDENT in str(step.get("grid")) for step in r.launch["steps"]):
            # a persistent grid of whole clusters, each with a row at least (resident_blocks: one
            # block an SM stands in without a GPU)
            clusters = grid // p["cluster"]
            most = p["grid_blocks"] if "grid_blocks" in p else LaunchLimits().sms
            assert grid % p["cluster"] == 0 and 1 <= clusters <= min(most // p["cluster"], shape["rows"]), (shape, p)
        elif "per_sm" in p:  # a persistent grid: at most sms * per_sm blocks, none without a row;
            # the kernel's loop deals rows round robin, so every row has a group
            assert 1 <= grid <= min(p["sms"] * p["per_sm"], -(-shape["rows"] // per_block)), (shape, p)
        else:
            assert (grid - 1) * per_block < shape["rows"] <= grid * per_block, (shape, p)
        resolved += 1
    assert resolved > 0
