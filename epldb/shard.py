"""Shards of a verify or bench run (``--shard i/n``): the selected realizations split into ``n``
parts of about equal work, so that ``n`` GPUs (or ``n`` lent sessions) share one run's work.

The unit is the realization, never a point or a shape: a realization is compiled once and its
points share that build, so splitting one over shards would compile it on every machine. Within a
shard, bench times the peers and the ceilings a shard's rows are compared against itself (the
comparison holds only inside one run on one board), so a contract whose realizations land in two
shards has its peers timed in both.

The partition depends only on the ids and their weights: greedy longest-processing-time first over
the ids sorted by (weight descending, id), ties going to the lowest shard. No dict order, set order
or string hash enters it, so every machine given the same catalog and arguments computes the same
shards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_SHARD = re.compile(r"(\d{1,6})/(\d{1,6})")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count``, counted from 1 as the user writes it."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def tag(self) -> str:
        """The run id's suffix: ``s1of2`` (no '/', which a file name cannot hold)."""
        return f"s{self.index}of{self.count}"


def parse_shard(text: str) -> Shard:
    """``"1/2"`` as Shard(1, 2); ValueError with a plain message for anything else."""
    m = _SHARD.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"--shard {text!r}: expected I/N with whole numbers, e.g. 1/2")
    index, count = int(m.group(1)), int(m.group(2))
    if count < 1:
        raise ValueError(f"--shard {text}: N must be at least 1")
    if not 1 <= index <= count:
        raise ValueError(f"--shard {text}: I must lie between 1 and N ({count})")
    return Shard(index, count)


def partition(weights: Mapping[str, int], count: int) -> list[list[str]]:
    """``count`` lists of ids covering ``weights``' keys once each, of about equal total weight;
    each list in sorted order. A weight below 1 counts as 1 (a realization without rows still
    costs its compile)."""
    loads = [0] * count
    parts: list[list[str]] = [[] for _ in range(count)]
    for rid in sorted(weights, key=lambda k: (-max(1, int(weights[k])), k)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        parts[lightest].append(rid)
        loads[lightest] += max(1, int(weights[rid]))
    return [sorted(p) for p in parts]


def shard_ids(ids: Sequence[str], weights: Mapping[str, int], shard: Shard | None) -> list[str]:
    """The ids of ``ids`` that ``shard`` holds, in ``ids``' order; all of them without a shard."""
    if shard is None:
        return list(ids)
    mine = set(partition({i: weights.get(i, 1) for i in ids}, shard.count)[shard.index - 1])
    return [i for i in ids if i in mine]
