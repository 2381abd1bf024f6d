"""Probe (not evidence): GB/s of the staged long-row kernels at 256 Ki columns as the row count
grows, beside a device-to-device copy of the same bytes, to test whether the 128-row shape loses
to a partly filled last round of clusters. One point per case (the best of bench 7608 / d919 at
128 x 262144), rows from 32 to 384; every launch's output is checked for NaN and poison."""
import csv
import os
import sys

import cupy
import torch

from epldb.bench import time_calls
from epldb.contracts.peers import from_torch
from epldb.runner import default_catalog, prepare

COLS = 262144
ROWS = [32, 64, 96, 120, 128, 144, 168, 192, 256, 384]
CASES = [  # realization, dtype, point
    ("rmsnorm/staged", "float32", dict(block=512, cluster=16, unroll=4)),
    ("rmsnorm/staged", "float32", dict(block=512, cluster=8, unroll=4)),
    ("rmsnorm/staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
    ("rmsnorm/staged", "bfloat16", dict(block=256, cluster=8, unroll=2)),
    ("softmax/online-staged", "float32", dict(block=512, cluster=16, unroll=4)),
    ("softmax/online-staged", "bfloat16", dict(block=256, cluster=16, unroll=4)),
]


def copy_gbps(nbytes: int) -> float:
    src = cupy.empty(nbytes, dtype=cupy.uint8)
    dst = cupy.empty(nbytes, dtype=cupy.uint8)
    src.fill(1)

    def go() -> None:
        cupy.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, cupy.cuda.runtime.memcpyDeviceToDevice,
                                      cupy.cuda.get_current_stream().ptr)

    t = time_calls([go])
    return 2 * nbytes / t.median_ms / 1e6


def finite(a: "cupy.ndarray", dt: torch.dtype) -> bool:
    """No NaN, inf or unwritten poison in an output (bfloat16 arrives as uint16 bits)."""
    if dt == torch.bfloat16:
        return bool(torch.isfinite(torch.from_dlpack(a.view(cupy.int16)).view(torch.bfloat16).float()).all())
    return bool(torch.isfinite(torch.from_dlpack(a)).all())


def main() -> None:
    catalog = default_catalog()
    out = os.environ.get("OUT", "/tmp/out")
    rows_out = []
    copies = {}
    for rid, dtype, point in CASES:
        dt = getattr(torch, dtype)
        esize = torch.tensor([], dtype=dt).element_size()
        for rows in ROWS:
            nbytes = rows * COLS * esize
            if nbytes not in copies:
                copies[nbytes] = copy_gbps(nbytes)
            pool = {"x": torch.randn(rows, COLS, device="cuda", dtype=dt),
                    "weight": torch.randn(COLS, device="cuda", dtype=dt)}
            launcher = prepare(catalog, rid, {"rows": rows, "cols": COLS}, {**point, "dtype": dtype})
            arrays = {n: from_torch(pool[n]) for n in launcher.contract.input_names}
            outs = launcher.allocate_outputs()
            arrays.update(outs)
            go = launcher.bind(arrays)
            go()
            cupy.cuda.get_current_stream().synchronize()
            ok = all(finite(a, dt) for a in outs.values())
            t = time_calls([go])
            moved = 2 * nbytes + (COLS * esize if "weight" in launcher.contract.input_names else 0)
            gbps = moved / t.median_ms / 1e6
            blocks = rows * point["cluster"]
            rows_out.append(dict(realization=rid, dtype=dtype, point=point, rows=rows, ms=round(t.median_ms, 5),
                                 p10=round(t.p10_ms, 5), p90=round(t.p90_ms, 5), gbps=round(gbps),
                                 copy_gbps=round(copies[nbytes]), of_copy=round(gbps / copies[nbytes], 3),
                                 blocks=blocks, finite=ok))
            print(rid, dtype, point, rows, rows_out[-1]["gbps"], rows_out[-1]["copy_gbps"], rows_out[-1]["of_copy"],
                  "ok" if ok else "NOT FINITE", flush=True)
            del pool, arrays, outs
            torch.cuda.empty_cache()
    with open(os.path.join(out, "tail.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows_out[0]))
        w.writeheader()
        w.writerows(rows_out)


if __name__ == "__main__":
    sys.exit(main())
