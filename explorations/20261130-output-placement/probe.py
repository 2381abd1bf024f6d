"""Probe (not evidence): is the 3% between our fp32 rmsnorm at 4 Ki / 16 Ki columns and
torch.compile's Triton kernel, whose SASS is nearly ours, a matter of where the output lies?
In `epldb bench` x and y are CuPy pool blocks allocated one after the other, 2^28 bytes apart
at these 2^26-element shapes; torch.compile's y comes from torch's allocator. Each variant times
the same kernel (rmsnorm/reread-fixed-cols, its best bench point) with y placed differently,
beside torch.compile on the same x, with epldb.bench.time_calls (events, medians)."""
import cupy
import torch

from epldb.bench import time_calls
from epldb.contracts.peers import from_torch
from epldb.runner import default_catalog, prepare

CASES = [  # rows, cols, realization, point (bench 20261130T052808Z-bench-c539)
    (16384, 4096, "rmsnorm/reread-fixed-cols", dict(columns=4096, group=512, sm_threads=1024)),
    (4096, 16384, "rmsnorm/reread-fixed-cols", dict(columns=16384, group=512, sm_threads=1024)),
    (16384, 4096, "rmsnorm/registers", dict(group=512, items=16, batch=1, min_block=64)),
    (262144, 256, "rmsnorm/registers", dict(group=32, items=16, batch=1, min_block=64)),
]


def gbps(rows: int, cols: int, ms: float) -> float:
    return 2 * rows * cols * 4 / ms / 1e6


def main() -> None:
    catalog = default_catalog()
    print(f"{'case':44} {'variant':34} {'y - x (MiB)':>12} {'GB/s':>6}")
    for rows, cols, rid, point in CASES:
        n = rows * cols
        rng = cupy.random.default_rng(11)
        x = rng.standard_normal((rows, cols), dtype=cupy.float32)
        w = rng.standard_normal(cols, dtype=cupy.float32)
        launcher = prepare(catalog, rid, {"rows": rows, "cols": cols}, {**point, "dtype": "float32"})
        variants = {}
        variants["cupy pool, after x (as bench)"] = cupy.empty(n, dtype=cupy.float32)
        pad = cupy.empty(n + (3 << 18), dtype=cupy.float32)
        variants["cupy, +3 MiB into a larger block"] = pad[3 << 18:]
        variants["cupy, +64 KiB into a larger block"] = pad[1 << 14:][:n]
        ty = torch.empty(n, device="cuda", dtype=torch.float32)
        variants["torch allocator"] = from_torch(ty)
        tag = f"{rid} {rows}x{cols}"
        for name, y in variants.items():
            go = launcher.bind({"x": x, "weight": w, "y": y})
            t = time_calls([go])
            print(f"{tag:44} {name:34} {(y.data.ptr - x.data.ptr) / 2**20:12.2f} {gbps(rows, cols, t.median_ms):6.0f}", flush=True)
        tx, tw = torch.as_tensor(x, device="cuda"), torch.as_tensor(w, device="cuda")
        fn = torch.compile(lambda a, b: torch.nn.functional.rms_norm(a, (cols,), b, 1e-6))
        fn(tx, tw)
        t = time_calls([lambda: fn(tx, tw)])
        print(f"{tag:44} {'torch.compile (own y)':34} {'':>12} {gbps(rows, cols, t.median_ms):6.0f}", flush=True)
        keep = fn(tx, tw)
        t = time_calls([lambda: fn(tx, tw)])
        print(f"{tag:44} {'torch.compile (a y held live)':34} {(keep.data_ptr() - x.data.ptr) / 2**20:12.2f} {gbps(rows, cols, t.median_ms):6.0f}", flush=True)
        del variants, pad, ty, keep
        cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
