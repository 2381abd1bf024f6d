"""Exploratory (not evidence): stream2.cu's variants of the staged-pipelined norms' memory skeleton,
128 MiB in and out, 64 KiB chunks, 3 buffers, plain grids of 112 and 132 blocks (one an SM), and a
plain 16-byte grid-stride copy of the same bytes. Prints one line per case; writes $OUT/stream2.csv."""
import csv
import os
import pathlib
import statistics

import cupy as cp

from epldb.occupancy import allow_dynamic_shared

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MIB = 1 << 20
N_BYTES = 128 * MIB
CHUNK, STAGES = 64 << 10, 3
MODES = {0: "read only", 1: "LDS -> STG", 2: "LDS -> STS, bulk store", 3: "bulk store only"}


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
    cases = [(m, keep, grid) for m in MODES for keep in (True, False) for grid in (112, 132)]
    names = sorted({f"stream2<512, {STAGES}, {m}, {'true' if k else 'false'}>" for m, k, _ in cases})
    names += ["plain_copy<2>", "plain_copy<4>"]
    mod = cp.RawModule(code=(HERE / "stream2.cu").read_text(), backend="nvrtc",
                       options=("-std=c++17", "-arch=sm_90a", f"-I{ROOT / 'kernels/include'}"), name_expressions=names)
    x = cp.random.random(N_BYTES // 4, dtype=cp.float32)
    y = cp.empty_like(x)
    rows = []
    for u in (2, 4):
        k = mod.get_function(f"plain_copy<{u}>")
        for blocks in (132 * 4, 132 * 8):
            y.fill(-1.0)
            launch = lambda: k((blocks,), (512,), (x, y, cp.int64(N_BYTES // 16)))
            launch()
            ok = bool(cp.array_equal(x, y))
            rows.append((f"plain copy unroll {u}", blocks, "equal" if ok else "NOT EQUAL", 2 * N_BYTES / timed(launch) / 1e9))
    smem = CHUNK * STAGES
    for m, keep, grid in cases:
        k = mod.get_function(f"stream2<512, {STAGES}, {m}, {'true' if keep else 'false'}>")
        allow_dynamic_shared(k, smem)
        y.fill(-1.0)
        args = (x, y, cp.int32(N_BYTES // CHUNK), cp.int32(CHUNK // 16))
        launch = lambda: k((grid,), (512,), args, shared_mem=smem)
        launch()
        cp.cuda.Device().synchronize()
        ok = bool(cp.array_equal(x, y)) if m else True
        moved = (2 if m else 1) * N_BYTES
        rows.append((f"{MODES[m]}, {'evict_last' if keep else 'no policy'}", grid, "equal" if ok else "NOT EQUAL",
                     moved / timed(launch) / 1e9))
    out = pathlib.Path(os.environ.get("OUT", "/tmp/out"))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "stream2.csv", "w", newline="") as f:
        csv.writer(f).writerows([("case", "grid", "note", "gbps")] + rows)
    for r in rows:
        print(f"{r[0]:40s} grid {r[1]:5d}  {r[2]:10s} {r[3]:7.0f} GB/s")


if __name__ == "__main__":
    main()
