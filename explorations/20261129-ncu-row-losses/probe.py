"""Probe: torch.compile's Triton for the losing row cases, and ours, launched once each inside an
NVTX range 'prof' (for ncu). Writes Inductor sources to $OUT/inductor/."""
import os, sys, json, pathlib
import torch
from torch._inductor.utils import run_and_get_code
from epldb.runner import default_catalog, prepare
from epldb.contracts.peers import from_torch

OUT = pathlib.Path(os.environ.get("OUT", "/tmp/out")); (OUT / "inductor").mkdir(parents=True, exist_ok=True)
cat = default_catalog()
F = torch.nn.functional
ops = {
    "rmsnorm": lambda x, w, b: F.rms_norm(x, (x.shape[1],), w, 1e-6),
    "layernorm": lambda x, w, b: F.layer_norm(x, (x.shape[1],), w, b, 1e-5),
    "softmax": lambda x, w, b: torch.softmax(x, dim=1),
    "log-softmax": lambda x, w, b: torch.log_softmax(x, dim=1),
}
cases = [  # operator, realization, rows, cols, dtype, point
    ("rmsnorm", "rmsnorm/registers", 4096, 16384, "float32", dict(group=1024, items=16, batch=1)),
    ("rmsnorm", "rmsnorm/registers", 16384, 4096, "float32", dict(group=512, items=16, batch=1)),
    ("layernorm", "layernorm/two-pass-registers", 16384, 4096, "float32", dict(group=128, items=32, batch=1)),
    ("rmsnorm", "rmsnorm/registers", 262144, 256, "float32", dict(group=32, items=8, batch=1)),
    ("rmsnorm", "rmsnorm/registers", 32768, 1024, "bfloat16", dict(group=128, items=8, batch=4)),
    ("layernorm", "layernorm/two-pass-registers", 262144, 256, "bfloat16", dict(group=8, items=32, batch=1)),
    ("log-softmax", "log-softmax/online-registers", 4096, 16384, "bfloat16", dict(group=512, items=32, batch=4)),
    ("softmax", "softmax/online-registers", 32768, 1024, "float32", dict(group=32, items=32, batch=1)),
]
which = sys.argv[1:] or ["torch", "ours"]
for op, rid, rows, cols, dt, point in cases:
    tdt = torch.float32 if dt == "float32" else torch.bfloat16
    x = torch.randn(rows, cols, device="cuda", dtype=tdt); w = torch.randn(cols, device="cuda", dtype=tdt)
    b = torch.randn(cols, device="cuda", dtype=tdt)
    tag = f"{op}-{dt}-{rows}x{cols}"
    if "torch" in which:
        fn = torch.compile(ops[op])
        ref, codes = run_and_get_code(fn, x, w, b)
        (OUT / "inductor" / f"{tag}.py").write_text("\n\n".join(codes))
        for _ in range(3): fn(x, w, b)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("prof"); fn(x, w, b); torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
    if "ours" in which:
        launcher = prepare(cat, rid, {"rows": rows, "cols": cols}, {**point, "dtype": dt})
        c = launcher.contract
        pool = {"x": from_torch(x), "weight": from_torch(w), "bias": from_torch(b)}
        arrays = {n: pool[n] for n in c.input_names}
        arrays.update(launcher.allocate_outputs())
        go = launcher.bind(arrays)
        for _ in range(3): go()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("prof"); go(); torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
    print("done", tag, flush=True)
