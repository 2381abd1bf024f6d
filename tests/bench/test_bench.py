"""Benchmark helpers on the CPU; timing and ceilings on the GPU."""

from __future__ import annotations

import pytest

import epldb
from repository import repository_catalog
from epldb.bench import BenchItem, count_rows, grids_sized, rotation_sets
from epldb.launch import ResolvedStep

CATALOG = repository_catalog()


def test_rotation_makes_the_working_set_four_times_l2() -> None:
    l2 = 60 << 20
    assert rotation_sets(4 << 20, l2) == 60  # 2^20 fp32: 60 sets of 4 MiB
    assert rotation_sets(1 << 30, l2) == 1  # 1 GiB needs no rotation
    assert rotation_sets(1, l2) == 128  # capped
    assert rotation_sets(0, l2) == 1


def test_a_bench_row_says_the_grid_a_resident_sized_step_launched() -> None:
    sized = ResolvedStep(1, "rows", (224, 1, 1), (256, 1, 1), 65536, (16, 1, 1), (), resident=True, resident_blocks=240)
    fixed = ResolvedStep(0, "zero", (1, 1, 1), (32, 1, 1), 0, None, ())
    assert grids_sized((fixed, sized)) == ["step 1: grid 224 of 240 resident blocks"]
    assert grids_sized((fixed,)) == []


def test_count_rows_matches_points_shapes_and_peers() -> None:
    r = CATALOG.realizations["block-reduce/warp-shuffle"]
    items = [BenchItem(r.id, r.points())]
    shapes = 2  # quick
    tiles = {p["block"] * p["items"] for p in r.points()}
    problems = len(tiles) * len(r.params["dtype"]) * len(r.params["op"])
    assert count_rows(CATALOG, items, quick=True) == len(r.points()) * shapes + problems * shapes * 3
    assert count_rows(CATALOG, items, quick=True, peers=False) == len(r.points()) * shapes


@pytest.mark.gpu
def test_time_calls_and_ceilings() -> None:
    import cupy

    from epldb.bench import measure_ceilings, time_calls

    a = cupy.ones(1 << 24, dtype=cupy.float32)
    t = time_calls([lambda: a.__imul__(1.0)], min_reps=10, max_reps=20)
    assert 0 < t.p10_ms <= t.median_ms <= t.p90_ms and 10 <= t.reps <= 20
    copy, read = measure_ceilings(1 << 28)
    assert (copy.name, read.name) == ("copy", "read")
    assert 100 < copy.gbps < 20000 and 100 < read.gbps < 20000


@pytest.mark.gpu
@pytest.mark.parametrize("ceiling", ["copy", "read"])
def test_a_size_matched_reference_counts_the_rounded_bytes_and_is_no_faster_than_its_ceiling(ceiling: str) -> None:
    from epldb.bench import AT_SIZE, measure_ceilings

    device = {c.name: c for c in measure_ceilings(1 << 30)}[ceiling]
    small = AT_SIZE[ceiling]((64 << 20) + 8, sets=2)  # the copy: 32 MiB + 4 each way, rounded to 16
    assert small.name == f"{ceiling}-at-size" and small.nbytes == 64 << 20
    # 64 MiB pay the launch and the ramp that the 1-2 GiB ceilings amortize: never faster, within noise.
    assert 100 < small.gbps < device.gbps * 1.02


@pytest.mark.parametrize(("ceiling", "moved", "counted"), [
    ("read", (64 << 20) + 15, 64 << 20), ("copy", (64 << 20) + 8, 64 << 20), ("copy", (64 << 20) + 40, (64 << 20) + 32)])
def test_at_size_bytes_round_as_the_measurement_does(ceiling: str, moved: int, counted: int) -> None:
    from epldb.bench import at_size_bytes

    assert at_size_bytes(ceiling, moved) == counted
