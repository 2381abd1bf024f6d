"""Probe (not evidence): rmsnorm fp32 at 16384x4096 and 4096x16384 and layernorm fp32 at 16384x4096,
the three cases still behind torch.compile. Our kernels at their best bench points (bench
20261130T052808Z-bench-c539: the fixed-column rmsnorm, and layernorm/two-pass-registers, the best
layernorm there) run beside Inductor's kernel for the same shape, each launched once inside an
NVTX range 'prof' for ncu. The rmsnorm kernels have the same block, grid, loads and bytes as
Triton's (../20261130-plain-vs-nc-loads, ../20261130-output-placement,
../20261130-reread-interleaved); what differs should show in the stall reasons. Argument:
'torch', 'ours' or both (default)."""
import os
import pathlib
import sys

import torch
from torch._inductor.utils import run_and_get_code

from epldb.contracts.peers import from_torch
from explorations.ncu import launch_in_range
from epldb.runner import default_catalog, prepare

OUT = pathlib.Path(os.environ.get("OUT", "/tmp/out"))
F = torch.nn.functional
OPS = {
    "rmsnorm": lambda x, w, b: F.rms_norm(x, (x.shape[1],), w, 1e-6),
    "layernorm": lambda x, w, b: F.layer_norm(x, (x.shape[1],), w, b, 1e-5),
}
CASES = [  # operator, realization, rows, cols, point
    ("rmsnorm", "rmsnorm/reread-fixed-cols", 16384, 4096, dict(columns=4096, group=512, sm_threads=1024)),
    ("rmsnorm", "rmsnorm/reread-fixed-cols", 4096, 16384, dict(columns=16384, group=512, sm_threads=1024)),
    ("layernorm", "layernorm/two-pass-registers", 16384, 4096, dict(group=128, items=32, batch=1, min_block=256)),
]


def main() -> None:
    which = sys.argv[1:] or ["torch", "ours"]
    catalog = default_catalog()
    for op, rid, rows, cols, point in CASES:
        x = torch.randn(rows, cols, device="cuda")
        w, b = torch.randn(cols, device="cuda"), torch.randn(cols, device="cuda")
        tag = f"{op}-float32-{rows}x{cols}"
        if "torch" in which:
            torch._dynamo.reset()  # a graph for this shape alone, as epldb's static-shape peer compiles it
            fn = torch.compile(OPS[op], dynamic=False)
            _, codes = run_and_get_code(fn, x, w, b)
            (OUT / f"inductor-{tag}.py").write_text("\n\n".join(codes))
            launch_in_range(lambda: fn(x, w, b))
        if "ours" in which:
            launcher = prepare(catalog, rid, {"rows": rows, "cols": cols}, {**point, "dtype": "float32"})
            pool = {"x": from_torch(x), "weight": from_torch(w), "bias": from_torch(b)}
            arrays = {n: pool[n] for n in launcher.contract.input_names}
            arrays.update(launcher.allocate_outputs())
            launch_in_range(launcher.bind(arrays))
        print("done", tag, flush=True)


if __name__ == "__main__":
    main()
