"""Probe (not evidence): the three row cases still clearly behind torch.compile after this session's
runs (`epldb compare`: outside the p10-p90 spread), ours and Inductor's kernel launched once each
inside an NVTX range 'prof' for ncu. Argument: 'torch', 'ours' or both (default)."""
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
CASES = [  # operator, our best realization there (bench 20261130T003809Z-bench-0222), rows, cols, point
    ("rmsnorm", "rmsnorm/reread", 16384, 4096, dict(group=512, sm_threads=2048, unroll=2)),
    ("rmsnorm", "rmsnorm/reread", 4096, 16384, dict(group=1024, sm_threads=2048, unroll=2)),
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
            fn = torch.compile(OPS[op])
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
