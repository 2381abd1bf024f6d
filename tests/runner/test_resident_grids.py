"""A launch step's ``resident: true`` claim: every block of its grid is on the device at once.

Persistent grids (blocks that loop over rows) and grids of clusters that must all be placed only
behave as their records say when no block waits for another to exit. On the GPU the claim is
checked at every parameter point and every verify and bench shape in the domain against the
driver's occupancy calculator (epldb.occupancy); on the CPU, that the plan carries the claim."""

from __future__ import annotations

import pytest

import epldb
from repository import repository_catalog
from epldb.contracts import get_contract
from epldb.launch import plans_in_domain

CATALOG = repository_catalog()
CLAIMS = sorted(r.id for r in CATALOG.realizations.values()
                if any(step.get("resident") for step in (r.launch or {}).get("steps", [])))


def _resident_steps(rid: str):
    """(point, shape, step) for every resident step the realization's verify and bench runs launch."""
    r = CATALOG.realizations[rid]
    contract = get_contract(CATALOG.contract_name_of(r))
    for shape, point, plan in plans_in_domain(r, contract, (*contract.verify_shapes, *contract.bench_shapes(quick=False))):
        assert plan.ok, [p.message for p in plan.problems]
        for step in plan.steps:
            if step.resident:
                yield point, shape, step


def test_claims_exist_and_reach_the_resolved_plan() -> None:
    assert CLAIMS
    for rid in CLAIMS:
        assert any(True for _ in _resident_steps(rid)), rid


@pytest.mark.gpu
@pytest.mark.parametrize("rid", CLAIMS)
def test_resident_grids_fit_the_device_at_once(rid: str) -> None:
    from epldb.occupancy import resident_blocks
    from epldb.device import device_info
    from epldb.runner import load_realization, prepare

    loaded = load_realization(CATALOG, rid)
    sms = device_info().sm_count
    checked: dict[tuple, int] = {}
    for point, shape, step in _resident_steps(rid):
        step = prepare(CATALOG, rid, shape, point).plan.steps[step.index]  # the grid the runner launches
        grid = step.grid[0] * step.grid[1] * step.grid[2]
        key = (step.entry, tuple(sorted(point.items())), step.block, step.shared_bytes)
        if key not in checked:
            fit = resident_blocks(loaded.function(step.entry, point), step.block, step.shared_bytes, sms)
            assert fit.blocks > 0, (point, fit)
            checked[key] = fit.blocks
            if "cluster" in point:  # compile-time __cluster_dims__ from the record's parameter
                assert fit.cluster_blocks == point["cluster"], (point, fit)
        assert grid <= checked[key], (
            f"{rid} at {point}, {shape}: grid of {grid} blocks, the device holds {checked[key]} at once")
