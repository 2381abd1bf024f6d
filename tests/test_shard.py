"""Shards of a run: a partition by realization, balanced by work, the same on every machine."""

from __future__ import annotations

import random

import pytest

from epldb.shard import Shard, parse_shard, partition, shard_ids


@pytest.mark.parametrize(("text", "shard"), [("1/1", Shard(1, 1)), ("2/2", Shard(2, 2)), (" 3/8 ", Shard(3, 8))])
def test_parse_shard(text: str, shard: Shard) -> None:
    assert parse_shard(text) == shard and str(shard) == text.strip()


@pytest.mark.parametrize(("text", "message"), [
    ("0/2", "I must lie between 1 and N (2)"), ("3/2", "I must lie between 1 and N (2)"),
    ("a/b", "expected I/N with whole numbers"), ("1/0", "N must be at least 1"), ("1", "expected I/N"),
    ("-1/2", "expected I/N"), ("1/2/3", "expected I/N")])
def test_bad_shards_say_why(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_shard(text)


def test_the_partition_covers_every_id_once_and_balances_the_work() -> None:
    weights = {f"p/r{i:02d}": w for i, w in enumerate([40, 1, 7, 7, 30, 12, 3, 0, 25, 9, 18, 4])}
    parts = partition(weights, 3)
    assert sorted(i for p in parts for i in p) == sorted(weights)
    loads = [sum(max(1, weights[i]) for i in p) for p in parts]
    assert max(loads) - min(loads) <= max(weights.values()) // 4, loads


def test_the_partition_ignores_the_order_it_is_given() -> None:
    # Same ids and weights in another order (another machine's dict, another hash seed): same shards.
    weights = {f"x/{chr(97 + i)}": (i * 7) % 5 for i in range(20)}
    items = list(weights.items())
    random.Random(1).shuffle(items)
    assert partition(dict(items), 4) == partition(weights, 4)
    ids = [k for k, _ in items]
    assert shard_ids(ids, weights, Shard(2, 4)) == [i for i in ids if i in partition(weights, 4)[1]]


def test_more_shards_than_ids_leaves_some_empty_and_no_shard_is_everything() -> None:
    assert partition({"a/x": 3, "a/y": 3}, 3) == [["a/x"], ["a/y"], []]
    assert shard_ids(["a/y", "a/x"], {}, None) == ["a/y", "a/x"]


def test_the_repository_bench_splits_into_shards_of_about_equal_work() -> None:
    import io

    from repository import repository_catalog
    from epldb.bench import realization_rows
    from epldb.measure import select_ids, bench_items

    cat = repository_catalog()
    selected = select_ids(cat, [], io.StringIO())
    assert selected
    shards = [bench_items(cat, selected, True, shard=Shard(i, 3)) for i in (1, 2, 3)]
    ids = [item.realization_id for items in shards for item in items]
    assert sorted(ids) == sorted(selected)  # each realization, and so its compile, in one shard
    loads = [sum(realization_rows(cat, item, True) for item in items) for items in shards]
    assert max(loads) <= 1.2 * min(loads), loads
