"""Exploratory (not evidence): how fast the staged-pipelined norms' memory skeleton (stream.cu) runs
on 112 SMs against 132, with and without clusters of 16, against a plain copy of the same bytes.
128 MiB in, 128 MiB out (fp32 128 x 262144), 64 KiB chunks (a cluster-of-16 block's fp32 slice).
Prints one line per case; writes $OUT/stream.csv."""
import csv
import os
import pathlib
import statistics

import cupy as cp

from epldb.occupancy import allow_cluster_shape, allow_dynamic_shared, resident_blocks

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MIB = 1 << 20
N_BYTES = 128 * MIB
CASES = [  # (name, kernel expression, grid, block, chunk bytes, stages, writes)
    ("plain 112 x 512, 3 x 64 KiB", "stream_plain<512, 3, true>", 112, 512, 64 << 10, 3, True),
    ("plain 132 x 512, 3 x 64 KiB", "stream_plain<512, 3, true>", 132, 512, 64 << 10, 3, True),
    ("cluster16 112 x 512, 3 x 64 KiB", "stream_cluster<16, 512, 3, true>", 112, 512, 64 << 10, 3, True),
    ("cluster8 120 x 512, 3 x 64 KiB", "stream_cluster<8, 512, 3, true>", 120, 512, 64 << 10, 3, True),
    ("plain 112 x 512, 6 x 32 KiB", "stream_plain<512, 6, true>", 112, 512, 32 << 10, 6, True),
    ("plain 132 x 512, 6 x 32 KiB", "stream_plain<512, 6, true>", 132, 512, 32 << 10, 6, True),
    ("read-only plain 112, 3 x 64 KiB", "stream_plain<512, 3, false>", 112, 512, 64 << 10, 3, False),
    ("read-only plain 132, 3 x 64 KiB", "stream_plain<512, 3, false>", 132, 512, 64 << 10, 3, False),
    ("read-only cluster16 112, 3 x 64 KiB", "stream_cluster<16, 512, 3, false>", 112, 512, 64 << 10, 3, False),
]


def timed(fn, reps=30):
    for _ in range(3):
        fn()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return statistics.median(times)


def main():
    names = sorted({c[1] for c in CASES})
    mod = cp.RawModule(code=(HERE / "stream.cu").read_text(), backend="nvrtc",
                       options=("-std=c++17", "-arch=sm_90a", f"-I{ROOT / 'kernels/include'}"), name_expressions=names)
    x = cp.random.random(N_BYTES // 4, dtype=cp.float32)
    y = cp.empty_like(x)
    rows = []
    copy_s = timed(lambda: cp.copyto(y, x))
    rows.append(("cupy copyto", 0, "", 2 * N_BYTES / copy_s / 1e9))
    for name, expr, grid, block, chunk, stages, writes in CASES:
        k = mod.get_function(expr)
        smem = chunk * stages
        allow_dynamic_shared(k, smem)
        allow_cluster_shape(k)
        held = resident_blocks(k, (block, 1, 1), smem, 132).blocks
        y.fill(-1.0)
        args = (x, y, cp.int32(N_BYTES // chunk), cp.int32(chunk // 16))
        launch = lambda: k((grid,), (block,), args, shared_mem=smem)
        launch()
        cp.cuda.Device().synchronize()
        ok = bool(cp.array_equal(x, y)) if writes else True
        s = timed(launch)
        moved = (2 if writes else 1) * N_BYTES
        rows.append((name, grid, f"{held} held, {'equal' if ok else 'NOT EQUAL'}", moved / s / 1e9))
    out = pathlib.Path(os.environ.get("OUT", "/tmp/out"))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "stream.csv", "w", newline="") as f:
        csv.writer(f).writerows([("case", "grid", "note", "gbps")] + rows)
    for r in rows:
        print(f"{r[0]:40s} grid {r[1]:4d}  {r[2]:22s} {r[3]:7.0f} GB/s")


if __name__ == "__main__":
    main()
