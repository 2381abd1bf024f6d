"""Benchmark helpers on the CPU; timing and ceilings on the GPU."""

from __future__ import annotations

import pytest

import epldb
from epldb.bench import BenchItem, count_rows, rotation_sets

CATALOG = epldb.load(lint=False)


def test_rotation_makes_the_working_set_four_times_l2() -> None:
    l2 = 60 << 20
    assert rotation_sets(4 << 20, l2) == 60  # 2^20 fp32: 60 sets of 4 MiB
    assert rotation_sets(1 << 30, l2) == 1  # 1 GiB needs no rotation
    assert rotation_sets(1, l2) == 128  # capped
    assert rotation_sets(0, l2) == 1


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
def test_read_at_size_is_its_own_ceiling_below_the_device_ceiling() -> None:
    from epldb.bench import measure_ceilings, measure_read_at_size

    _, read = measure_ceilings(1 << 30)
    small = measure_read_at_size((64 << 20) + 8, sets=2)
    assert small.name == "read-at-size" and small.nbytes == 64 << 20
    # A 64 MiB read pays the launch and the ramp that 1 GiB amortizes: never faster, within noise.
    assert 100 < small.gbps < read.gbps * 1.02


@pytest.mark.gpu
def test_copy_at_size_copies_half_each_way_and_is_no_faster_than_the_copy_ceiling() -> None:
    from epldb.bench import measure_ceilings, measure_copy_at_size

    copy, _ = measure_ceilings(1 << 30)
    small = measure_copy_at_size((64 << 20) + 8, sets=2)
    assert small.name == "copy-at-size" and small.nbytes == 64 << 20
    assert 100 < small.gbps < copy.gbps * 1.02


@pytest.mark.parametrize(("ceiling", "moved", "counted"), [
    ("read", (64 << 20) + 15, 64 << 20), ("copy", (64 << 20) + 8, 64 << 20), ("copy", (64 << 20) + 40, (64 << 20) + 32)])
def test_at_size_bytes_round_as_the_measurement_does(ceiling: str, moved: int, counted: int) -> None:
    from epldb.bench import at_size_bytes

    assert at_size_bytes(ceiling, moved) == counted
