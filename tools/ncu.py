#!/usr/bin/env python3
"""Nsight Compute probes of kernels, as the experiments (catalog/experiments/) take them.

A probe script launches each kernel of interest once inside the NVTX range 'prof', after warm-up
launches, and runs under ncu with the range as its filter; this tool builds that command line
with the counters the experiments compare, and prints ncu's CSV as one block per launch. Profiles
are single launches at unmanaged clocks: compare counters and structure, not times.

In a probe (on the device, with torch and the repository's epldb importable)::

    sys.path.insert(0, "tools"); import ncu
    ncu.launch_in_range(go)                         # three warm-ups, then one launch in 'prof'
    ncu.profile_row_cases(cases, rows, cols)        # the same for row operators at one shape
    ncu.profile_cases(cases)                        # any contract: (realization, shape, point)

Around it::

    python3 tools/ncu.py command probe.py [EXTRA_METRIC,...]   # print the ncu command line
    python3 tools/ncu.py summarize OUT/ncu.csv                 # one block per launch
"""

from __future__ import annotations

import csv
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any

RANGE = "prof"
#: What the experiments' profiles compare: time, DRAM, L2 and L1 bytes and rates, issue, occupancy
#: limits, and the main stall reasons (per warp active).
METRICS: tuple[str, ...] = (
    "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_bytes.sum", "lts__t_sector_hit_rate.pct",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__t_bytes.sum", "l1tex__t_sector_hit_rate.pct",
    "sm__inst_executed.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active", "launch__registers_per_thread",
    "launch__occupancy_limit_shared_mem", "sm__ctas_launched.sum",
    *(f"smsp__warp_issue_stalled_{reason}_per_warp_active.pct" for reason in (
        "long_scoreboard", "barrier", "short_scoreboard", "lg_throttle", "wait", "drain", "sleeping", "membar")),
)


def command(probe: str, extra: Sequence[str] = (), *, python: str = "python3") -> list[str]:
    """The ncu command line that profiles the launches ``probe`` makes inside the range 'prof':
    clock not fixed (as the bench runs), CSV on stdout, METRICS plus ``extra``."""
    metrics = ",".join(dict.fromkeys([*METRICS, *extra]))
    return ["ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", f"{RANGE}/", "--metrics", metrics,
            "--csv", python, probe]


def launch_in_range(go: Callable[[], object]) -> None:
    """Warms ``go`` up with three launches, then launches it once inside the NVTX range 'prof', the
    one launch ncu profiles."""
    import torch  # on the device only: nothing else here needs torch

    for _ in range(3):
        go()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(RANGE)
    go()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def profile_row_cases(cases: Sequence[tuple[str, str, dict[str, Any]]], rows: int, cols: int,
                      root: str | None = None) -> None:
    """For each (realization, dtype, point) of a row operator: fresh random x (rows x cols) and
    per-column weight and bias, as many as the contract reads, then ``launch_in_range``. ``root``:
    a patched copy of the tree, else this repository."""
    import torch

    from epldb.contracts.peers import from_torch
    from epldb.catalog import default_catalog
    from epldb.runner import prepare

    catalog = default_catalog(root)
    for rid, dtype, point in cases:
        dt = getattr(torch, dtype)
        pool = {"x": torch.randn(rows, cols, device="cuda", dtype=dt),
                "weight": torch.randn(cols, device="cuda", dtype=dt),
                "bias": torch.randn(cols, device="cuda", dtype=dt)}
        launcher = prepare(catalog, rid, {"rows": rows, "cols": cols}, {**point, "dtype": dtype})
        arrays = {n: from_torch(pool[n]) for n in launcher.contract.input_names}
        arrays.update(launcher.allocate_outputs())
        launch_in_range(launcher.bind(arrays))
        print("done", rid, dtype, flush=True)


def profile_cases(cases: Sequence[tuple[str, dict[str, int], dict[str, Any]]], root: str | None = None) -> None:
    """For each (realization, shape, point) of any contract: its inputs as the contract makes them
    (fresh random on the device, seed 0), then ``launch_in_range``."""
    import cupy

    from epldb.catalog import default_catalog
    from epldb.contracts.base import make_rng
    from epldb.runner import prepare

    catalog = default_catalog(root)
    for rid, shape, point in cases:
        launcher = prepare(catalog, rid, shape, point)
        arrays = launcher.contract.make_inputs(shape, point["dtype"], launcher.point, make_rng(cupy, 0), cupy)
        arrays.update(launcher.allocate_outputs())
        launch_in_range(launcher.bind(arrays))
        print("done", rid, shape, point, flush=True)


def launches(text: str) -> dict[str, dict[str, str]]:
    """ncu's CSV output as launches in the probe's order, each '<ID> <kernel name>' mapped to its
    metrics by name. Lines that are not the CSV's (ncu's log, the probe's own prints) are skipped."""
    rows = [r for r in csv.reader(text.splitlines()) if len(r) > 10]
    if not rows:
        return {}
    head, body = rows[0], rows[1:]
    i, k, m, v = (head.index(c) for c in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
    out: dict[str, dict[str, str]] = {}
    for r in body:
        out.setdefault(f"{r[i]:>3} {r[k][:90]}", {})[r[m]] = r[v]
    return out


def summarize(text: str) -> str:
    """One block per launch: its ID and kernel name, then its metrics sorted by name."""
    lines: list[str] = []
    for name, metrics in launches(text).items():
        lines.append(name)
        lines += [f"    {key:70} {metrics[key]}" for key in sorted(metrics)]
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv: Sequence[str]) -> int:
    if len(argv) >= 2 and argv[0] == "command":
        extra = argv[2].split(",") if len(argv) > 2 and argv[2] else []
        print(shlex.join(command(argv[1], extra)))
        return 0
    if len(argv) == 2 and argv[0] == "summarize":
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            sys.stdout.write(summarize(f.read()))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
