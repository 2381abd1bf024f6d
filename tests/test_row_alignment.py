"""Rows that do not start on 16-byte boundaries (odd vocabularies: 8192 x 32001, 2048 x 100003,
3000 x 5003) take a 16-byte vector path in every row operator: the entry that splits each row by
address (a scalar head and tail around a 16-byte body, kernels/include/epl/group/walk.cuh), not the
element path. Generated from the catalog, so a new row realization is held to it as well."""

from __future__ import annotations

import pytest

import epldb
from epldb.bench import SWEEP, shapes_for
from epldb.contracts import get_contract
from epldb.launch import contract_arrays, pick_entry, plan_env, resolve_plan
from epldb.launch.domain import in_domain
from repository import repository_catalog

ROW_OPERATORS = ("softmax", "log-softmax", "logsumexp", "cross-entropy", "rmsnorm", "layernorm")
ODD_SHAPES = ({"rows": 8192, "cols": 32_001}, {"rows": 2048, "cols": 100_003}, {"rows": 3000, "cols": 5003})
DTYPES = ("float32", "bfloat16")

#: Row realizations that keep `unaligned_when` on cols without a split entry, and why.
NO_SPLIT = {
    "rmsnorm/reread-fixed-cols": "compiled for one column count, whole 16-byte vectors: odd cols are outside its domain",
    "layernorm/welford-reread-fixed-cols": "compiled for one column count, whole 16-byte vectors: odd cols are outside "
                                           "its domain",
    "rmsnorm/staged-pipelined": "holds its parameter vectors in registers across rows, whose offset mod 16 changes "
                                "from row to row at odd cols",
    "layernorm/shifted-staged-pipelined": "holds its parameter vectors in registers across rows",
    "layernorm/two-pass-staged-pipelined": "holds its parameter vectors in registers across rows",
}


@pytest.fixture(scope="module")
def catalog() -> epldb.Catalog:
    return repository_catalog()


def row_realizations(catalog: epldb.Catalog) -> list:
    return [r for r in catalog.realizations.values() if r.subject in ROW_OPERATORS]


def steps(r) -> list[dict]:
    return list((r.launch or {}).get("steps") or [])


def rules_on_cols(step: dict) -> bool:
    return "cols" in str(step.get("unaligned_when", ""))


def test_rows_off_16_byte_boundaries_take_a_split_entry_not_the_element_path(catalog: epldb.Catalog) -> None:
    """A step that sends odd cols away from its aligned entry must send them to a split entry."""
    scalar_only = [r.id for r in row_realizations(catalog) for s in steps(r)
                   if rules_on_cols(s) and "split_entry" not in s and r.id not in NO_SPLIT]
    assert scalar_only == [], f"odd cols take the element path; name a split_entry (epl::kSplitPath): {scalar_only}"


def test_the_exceptions_are_current(catalog: epldb.Catalog) -> None:
    for rid in NO_SPLIT:
        r = catalog.realizations[rid]
        assert not any("split_entry" in s for s in steps(r)), f"{rid} has a split entry now: drop it from NO_SPLIT"


def test_a_split_entry_compiles_the_split_path_and_the_aligned_entry_does_not(catalog: epldb.Catalog) -> None:
    checked = 0
    for r in row_realizations(catalog):
        entries = {e.name: e.expression for e in r.kernel.entries}
        for s in steps(r):
            if "split_entry" not in s:
                continue
            checked += 1
            split = entries[s["split_entry"]]  # the split path: a template argument, or a kernel of its own
            assert "epl::kSplitPath" in split or split.split("<", 1)[0].endswith("_split"), (r.id, split)
            assert "epl::kSplitPath" not in entries[s["entry"]], (r.id, entries[s["entry"]])
            if "unaligned_entry" in s:
                assert "epl::kScalarPath" in entries[s["unaligned_entry"]], (r.id, entries[s["unaligned_entry"]])
    assert checked >= 25


def test_odd_rows_resolve_to_the_split_entry_at_every_point_that_serves_them(catalog: epldb.Catalog) -> None:
    resolved = 0
    for r in row_realizations(catalog):
        split = [s.get("split_entry") for s in steps(r)]
        if not any(split):
            continue
        arrays = contract_arrays(get_contract(catalog.subject_of(r).contract))
        for point in r.points():
            for shape in ODD_SHAPES:
                if not in_domain(r, shape, point):
                    continue
                plan = resolve_plan(r, plan_env(shape, point), arrays)
                assert plan.ok, (r.id, point, shape, [p.message for p in plan.problems])
                for step, name in zip(plan.steps, split):
                    if name is not None:
                        assert (step.entry, step.entry_splits) == (name, True), (r.id, point, shape)
                        resolved += 1
    assert resolved > 0


@pytest.mark.parametrize("operator", ROW_OPERATORS)
def test_every_row_operator_serves_each_odd_shape_with_a_split_entry_in_both_dtypes(catalog: epldb.Catalog,
                                                                                      operator: str) -> None:
    served = {(s["rows"], s["cols"], d): [] for s in ODD_SHAPES for d in DTYPES}
    for r in row_realizations(catalog):
        if r.subject != operator or not any("split_entry" in s for s in steps(r)):
            continue
        for point in r.points():
            for shape in ODD_SHAPES:
                key = (shape["rows"], shape["cols"], str(point.get("dtype")))
                if key in served and in_domain(r, shape, point):
                    served[key].append(r.id)
    assert [k for k, v in served.items() if not v] == []


@pytest.mark.parametrize("operator", ROW_OPERATORS)
def test_the_contracts_verify_and_sweep_rows_off_16_byte_boundaries(catalog: epldb.Catalog, operator: str) -> None:
    contract = get_contract(catalog.operators[operator].contract)
    cols = [s["cols"] for s in contract.verify_shapes]
    assert any(c % 4 for c in cols) and any(c % 8 for c in cols)  # fp32 and bf16 rows off 16-byte boundaries
    sweep = shapes_for(contract, quick=False, shapes=SWEEP)
    assert all(s in sweep for s in ODD_SHAPES), sweep


def test_pick_entry_takes_the_split_entry_for_arrays_at_one_offset_mod_16() -> None:
    aligned, congruent, apart = (256, 512), (260, 516), (256, 260)
    # An aligned entry with a split and an unaligned one beside it.
    assert [pick_entry(False, True, True, a) for a in (aligned, congruent, apart)] == [0, 1, 2]
    # Without a split entry the old rule: any misaligned array takes the unaligned entry.
    assert [pick_entry(False, False, True, a) for a in (aligned, congruent, apart)] == [0, 2, 2]
    # The plan chose the split entry (odd cols): it serves one offset mod 16, the unaligned one the rest.
    assert [pick_entry(True, False, True, a) for a in (aligned, congruent, apart)] == [0, 0, 2]
    # A kernel that tests its arrays itself runs whatever the addresses.
    assert [pick_entry(True, False, False, a) for a in (aligned, congruent, apart)] == [0, 0, 0]
    assert [pick_entry(False, True, False, a) for a in (aligned, congruent, apart)] == [0, 1, 0]
