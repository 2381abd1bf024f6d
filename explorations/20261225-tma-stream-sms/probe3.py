"""Exploratory (not evidence): probe.py and probe2.py measured a plain 16-byte copy and cupy.copyto at
3404-3466 GB/s, where bench's copy-at-size (cudaMemcpyAsync device to device, the same 128 MiB)
reads 3987. This one checks that gap before it reads anything into the skeleton: three seconds of
copies first (the board warm), then cudaMemcpyAsync as bench runs it (sources rotated, one
destination), the plain copy, the skeleton's LDS -> STG and bulk-store exits on 112 and 132 blocks
and under clusters of 16, and cudaMemcpyAsync again last. Writes $OUT/stream3.csv."""
import csv
import os
import pathlib
import statistics
import time

import cupy as cp

from epldb.occupancy import allow_cluster_shape, allow_dynamic_shared

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MIB = 1 << 20
N_BYTES = 128 * MIB
CHUNK, STAGES = 64 << 10, 3
SETS = 2  # rotated sources, as bench rotates a shape's inputs


def timed(calls, reps=40):
    for c in calls * 2:
        c()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(reps):
        start.record()
        calls[i % len(calls)]()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return statistics.median(times)


def main():
    names = ["stream2<512, 3, 1, true>", "stream2<512, 3, 2, true>", "plain_copy<2>"]
    mod = cp.RawModule(code=(HERE / "stream2.cu").read_text(), backend="nvrtc",
                       options=("-std=c++17", "-arch=sm_90a", f"-I{ROOT / 'kernels/include'}"), name_expressions=names)
    cl = cp.RawModule(code=(HERE / "stream.cu").read_text(), backend="nvrtc",
                      options=("-std=c++17", "-arch=sm_90a", f"-I{ROOT / 'kernels/include'}"),
                      name_expressions=["stream_cluster<16, 512, 3, true>"])
    xs = [cp.random.random(N_BYTES // 4, dtype=cp.float32) for _ in range(SETS)]
    y = cp.empty_like(xs[0])
    memcpy = [lambda x=x: y.data.copy_from_device_async(x.data, N_BYTES) for x in xs]
    t_end = time.time() + 3.0
    while time.time() < t_end:  # warm the board
        for c in memcpy * 20:
            c()
        cp.cuda.Device().synchronize()
    rows = [("cudaMemcpyAsync D2D (bench's copy-at-size), first", 0, 2 * N_BYTES / timed(memcpy) / 1e9)]
    k = mod.get_function("plain_copy<2>")
    for blocks in (528, 1056):
        calls = [lambda x=x, blocks=blocks: k((blocks,), (512,), (x, y, cp.int64(N_BYTES // 16))) for x in xs]
        rows.append(("plain 16-byte copy, unroll 2", blocks, 2 * N_BYTES / timed(calls) / 1e9))
    smem = CHUNK * STAGES
    for label, fn in (("LDS -> STG", mod.get_function("stream2<512, 3, 1, true>")),
                      ("LDS -> STS, bulk store", mod.get_function("stream2<512, 3, 2, true>")),
                      ("LDS -> STG, clusters of 16", cl.get_function("stream_cluster<16, 512, 3, true>"))):
        allow_dynamic_shared(fn, smem)
        allow_cluster_shape(fn)
        for grid in ((112,) if "clusters" in label else (112, 132)):
            calls = [lambda x=x, fn=fn, grid=grid: fn((grid,), (512,), (x, y, cp.int32(N_BYTES // CHUNK),
                                                                         cp.int32(CHUNK // 16)), shared_mem=smem)
                     for x in xs]
            y.fill(-1.0)
            calls[0]()
            cp.cuda.Device().synchronize()
            assert bool(cp.array_equal(xs[0], y)), label
            rows.append((f"skeleton {label}", grid, 2 * N_BYTES / timed(calls) / 1e9))
    rows.append(("cudaMemcpyAsync D2D, last", 0, 2 * N_BYTES / timed(memcpy) / 1e9))
    out = pathlib.Path(os.environ.get("OUT", "/tmp/out"))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "stream3.csv", "w", newline="") as f:
        csv.writer(f).writerows([("case", "grid", "gbps")] + rows)
    for r in rows:
        print(f"{r[0]:52s} grid {r[1]:5d} {r[2]:7.0f} GB/s")


if __name__ == "__main__":
    main()
