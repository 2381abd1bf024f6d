"""Probe (not evidence): one launch each, inside an NVTX range 'prof' for ncu, of the staged
layernorm and rmsnorm at 128x262144 (their best points in bench 20261130T141313Z-bench-cbf6), from
the tree given as argv[1] (the committed one or the patched copy). Usage: python3 probe.py ROOT"""
import sys

import torch

from epldb.contracts.peers import from_torch
from epldb.runner import default_catalog, prepare
from explorations.ncu import launch_in_range

ROWS, COLS = 128, 262144
CASES = [  # realization, dtype, point
    ("layernorm/welford-staged", "float32", dict(block=512, cluster=16, unroll=2)),
    ("layernorm/welford-staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
    ("rmsnorm/staged", "float32", dict(block=512, cluster=16, unroll=4)),
    ("rmsnorm/staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
]


def main() -> None:
    catalog = default_catalog(sys.argv[1])
    for rid, dtype, point in CASES:
        dt = getattr(torch, dtype)
        pool = {"x": torch.randn(ROWS, COLS, device="cuda", dtype=dt),
                "weight": torch.randn(COLS, device="cuda", dtype=dt),
                "bias": torch.randn(COLS, device="cuda", dtype=dt)}
        launcher = prepare(catalog, rid, {"rows": ROWS, "cols": COLS}, {**point, "dtype": dtype})
        arrays = {n: from_torch(pool[n]) for n in launcher.contract.input_names}
        arrays.update(launcher.allocate_outputs())
        launch_in_range(launcher.bind(arrays))
        print("done", rid, dtype, flush=True)


if __name__ == "__main__":
    main()
