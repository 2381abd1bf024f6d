#!/usr/bin/env python3
"""How long the data layer takes to read, reported and never asserted (a test that asserts a time
fails on a busy or slow machine; a report lets the reader judge).

    python3 tools/bench_load.py [--repeat 5]

Prints the median and minimum of ``epldb.load()``, ``epldb.validate()`` and ``cat.evidence()``,
each in a fresh state (imports warmed once first), against the goals the data layer keeps:
a load and all committed evidence under one second each on a 2-core machine.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

GOALS_S = {"load": 1.0, "evidence": 1.0}


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    fn()  # warm imports and file caches once: the figure is for the work, not for Python's imports
    out = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    import epldb

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cat = epldb.load()
    cases: dict[str, Callable[[], Any]] = {"load": epldb.load, "validate": epldb.validate, "evidence": cat.evidence}
    print(f"{'step':<10} {'median s':>9} {'min s':>7} {'goal s':>7}")
    for name, fn in cases.items():
        times = timed(fn, max(1, args.repeat))
        goal = GOALS_S.get(name)
        print(f"{name:<10} {statistics.median(times):9.3f} {min(times):7.3f} {goal if goal else '':>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
