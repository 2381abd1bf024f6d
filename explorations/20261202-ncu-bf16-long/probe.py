"""Probe (not evidence): one launch each, inside an NVTX range 'prof' for ncu, of the kernels at
issue 7's second-bar misses: bf16 rows of 1 Ki columns (read-write, 0.86-0.88 of copy), bf16
logsumexp (read-only, 0.70-0.84) and the staged rows at 64 Ki and 256 Ki columns (0.65-0.86).
Each at its best point in the committed benches (20261130T100804Z-bench-5f74,
20261130T102838Z-bench-7617, 20261130T080013Z-bench-209c)."""
import torch

from epldb.contracts.peers import from_torch
from explorations.ncu import launch_in_range
from epldb.runner import default_catalog, prepare

CASES = [  # realization, dtype, rows, cols, point
    ("softmax/two-reduction-registers", "bfloat16", 32768, 1024, dict(group=32, items=32, batch=1, min_block=64)),
    ("rmsnorm/registers", "bfloat16", 32768, 1024, dict(group=32, items=32, batch=1, min_block=64)),
    ("logsumexp/online-stream", "bfloat16", 16384, 4096, dict(group=8, unroll=4)),
    ("logsumexp/online-stream", "float32", 16384, 4096, dict(group=32, unroll=8)),
    ("rmsnorm/staged", "float32", 1024, 65536, dict(block=256, cluster=4, unroll=4)),
    ("rmsnorm/staged", "float32", 128, 262144, dict(block=256, cluster=16, unroll=4)),
]


def main() -> None:
    catalog = default_catalog()
    for rid, dtype, rows, cols, point in CASES:
        dt = getattr(torch, dtype)
        pool = {"x": torch.randn(rows, cols, device="cuda", dtype=dt),
                "weight": torch.randn(cols, device="cuda", dtype=dt)}
        launcher = prepare(catalog, rid, {"rows": rows, "cols": cols}, {**point, "dtype": dtype})
        arrays = {n: from_torch(pool[n]) for n in launcher.contract.input_names}
        arrays.update(launcher.allocate_outputs())
        launch_in_range(launcher.bind(arrays))
        print("done", rid, dtype, rows, cols, flush=True)


if __name__ == "__main__":
    main()
