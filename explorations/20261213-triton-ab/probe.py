"""Probe (not evidence): is the fp32 gap to torch.compile in the kernel or in how it is launched, and
is it the L2 eviction policies Triton puts on its loads?

Three cases stay 2.3-2.9% behind torch.compile (bench 20261130T190546Z-bench-3e70): rmsnorm fp32
16384x4096 and 4096x16384, layernorm fp32 16384x4096. ncu found the same grid, block, bytes and
stall mix (../20261201-ncu-fixed-cols). Here every kernel runs on the same torch-allocated x,
weight, bias and y, timed by epldb's own bench timer (time_calls: events, behind a device sleep):

- torch-compile: the bench peer, F.rms_norm / F.layer_norm under torch.compile(dynamic=False);
- tri-hinted: a hand-written Triton kernel of Inductor's shape (a program per row, the row in one
  block of BLOCK = cols, x loaded evict_last, reloaded evict_first, parameters evict_last);
- tri-plain: the same kernel with no eviction policy;
- tri-once: no reload: x kept from the first load, no policy;
- cupy-cubin: tri-hinted's own cubin, launched through CuPy (the launcher, not the code);
- cupy-ptx / cupy-ptx-noL2: tri-hinted's PTX compiled by the driver, as is and with the L2
  cache-policy operands removed (the L1 priorities kept): the L2 policy alone;
- ours: the catalog's best points at the shape.

Each candidate is checked against torch-compile's output before it is timed; the list is timed
twice, in order, to show drift. Writes $OUT/triton-ab.csv; prints a table."""
import csv
import os
import pathlib
import re
import statistics

import cupy
import numpy as np
import torch
import triton
import triton.language as tl

from epldb.bench import time_calls
from epldb.contracts.peers import from_torch
from epldb.runner import default_catalog, prepare

OUT = pathlib.Path(os.environ.get("OUT", "/tmp/out"))
F = torch.nn.functional
RMS_EPS, LN_EPS = 1e-6, 1e-5


@triton.jit
def rms_row(x_ptr, w_ptr, y_ptr, COLS: tl.constexpr, EPS: tl.constexpr, MODE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, COLS)
    base = x_ptr + row * COLS + offs
    if MODE == 0:  # hinted, as Inductor
        x = tl.load(base, eviction_policy="evict_last")
    else:
        x = tl.load(base)
    r = tl.rsqrt(tl.sum(x * x, 0) * (1.0 / COLS) + EPS)
    if MODE == 0:
        x2 = tl.load(base, eviction_policy="evict_first")
        w = tl.load(w_ptr + offs, eviction_policy="evict_last")
    elif MODE == 1:
        x2 = tl.load(base)
        w = tl.load(w_ptr + offs)
    else:
        x2 = x
        w = tl.load(w_ptr + offs)
    tl.store(y_ptr + row * COLS + offs, x2 * r * w)


@triton.jit
def ln_row(x_ptr, w_ptr, b_ptr, y_ptr, COLS: tl.constexpr, EPS: tl.constexpr, MODE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, COLS)
    base = x_ptr + row * COLS + offs
    if MODE == 0:
        x = tl.load(base, eviction_policy="evict_last")
    else:
        x = tl.load(base)
    mean = tl.sum(x, 0) * (1.0 / COLS)
    d = x - mean
    r = tl.rsqrt(tl.sum(d * d, 0) * (1.0 / COLS) + EPS)
    if MODE == 0:
        x2 = tl.load(base, eviction_policy="evict_first")
        w = tl.load(w_ptr + offs, eviction_policy="evict_last")
        b = tl.load(b_ptr + offs, eviction_policy="evict_last")
    elif MODE == 1:
        x2 = tl.load(base)
        w = tl.load(w_ptr + offs)
        b = tl.load(b_ptr + offs)
    else:
        x2 = x
        w = tl.load(w_ptr + offs)
        b = tl.load(b_ptr + offs)
    tl.store(y_ptr + row * COLS + offs, (x2 - mean) * r * w + b)


CASES = [  # op, rows, cols, num_warps, [(realization, point)]
    ("rmsnorm", 16384, 4096, 16, [("rmsnorm/registers", dict(batch=1, group=512, items=16, min_block=256)),
                                  ("rmsnorm/reread-fixed-cols", dict(columns=4096, group=512, sm_threads=1024))]),
    ("rmsnorm", 4096, 16384, 32, [("rmsnorm/staged", dict(block=512, cluster=2, unroll=4)),
                                  ("rmsnorm/reread-fixed-cols", dict(columns=16384, group=512, sm_threads=1024))]),
    ("layernorm", 16384, 4096, 16, [("layernorm/two-pass-registers", dict(batch=1, group=128, items=32, min_block=256))]),
]


def strip_l2_hints(ptx: str) -> str:
    """The PTX with every `.L2::cache_hint` qualifier and its policy operand removed."""
    out = []
    for line in ptx.splitlines():
        if ".L2::cache_hint" in line:
            line = line.replace(".L2::cache_hint", "")
            line = re.sub(r",\s*%rd\d+\s*;", ";", line)
        out.append(line)
    return "\n".join(out)


def cupy_launch(module, name, grid, num_warps, shared, ptrs, nparams):
    fn = module.get_function(name)
    extra = [np.uint64(0)] * (nparams - len(ptrs))
    args = tuple(ptrs) + tuple(extra)
    return lambda: fn((grid,), (num_warps * 32,), args, shared_mem=shared)


def case_inputs(op, rows, cols):
    """Fresh x (rows x cols, fp32, mean 0.5, spread 3), weight, bias, a NaN-poisoned y, and the
    bytes one pass moves (x read, y written, the parameters once)."""
    torch.manual_seed(rows)
    x = torch.randn(rows, cols, device="cuda") * 3 + 0.5
    w = torch.rand(cols, device="cuda") + 0.5
    b = torch.randn(cols, device="cuda")
    y = torch.full_like(x, float("nan"))
    return x, w, b, y, 2 * x.numel() * 4 + cols * 4 * (1 if op == "rmsnorm" else 2)


def main() -> None:
    catalog = default_catalog()
    rows_out = []
    scratch = pathlib.Path("/tmp/triton-ab"); scratch.mkdir(exist_ok=True)
    for op, rows, cols, warps, ours in CASES:
        x, w, b, y, nbytes = case_inputs(op, rows, cols)
        if op == "rmsnorm":
            ref_fn, ref_args = (lambda x, w, b: F.rms_norm(x, (x.shape[1],), w, RMS_EPS)), (x, w, b)
            tri = lambda mode: rms_row[(rows,)](x, w, y, COLS=cols, EPS=RMS_EPS, MODE=mode, num_warps=warps)
            ptrs = (x.data_ptr(), w.data_ptr(), y.data_ptr())
        else:
            ref_fn, ref_args = (lambda x, w, b: F.layer_norm(x, (x.shape[1],), w, b, LN_EPS)), (x, w, b)
            tri = lambda mode: ln_row[(rows,)](x, w, b, y, COLS=cols, EPS=LN_EPS, MODE=mode, num_warps=warps)
            ptrs = (x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr())
        torch._dynamo.reset()
        compiled = torch.compile(ref_fn, dynamic=False)
        ref = compiled(*ref_args).clone()
        cands = {"torch-compile": lambda: compiled(*ref_args)}
        for mode, tag in ((0, "tri-hinted"), (1, "tri-plain"), (2, "tri-once")):
            cands[tag] = (lambda m: (lambda: tri(m)))(mode)
        k = tri(0)
        name, shared = k.metadata.name, k.metadata.shared
        ptx = k.asm["ptx"]
        entry = ptx[ptx.index(".entry"):]
        nparams = entry[: entry.index(")")].count(".param")
        (scratch / f"{op}-{cols}.cubin").write_bytes(k.asm["cubin"])
        (scratch / f"{op}-{cols}.ptx").write_text(ptx)
        (scratch / f"{op}-{cols}-noL2.ptx").write_text(strip_l2_hints(ptx))
        (OUT / f"tri-hinted-{op}-{rows}x{cols}.ptx").write_text(ptx)
        for tag, path in (("cupy-cubin", f"{op}-{cols}.cubin"), ("cupy-ptx", f"{op}-{cols}.ptx"),
                          ("cupy-ptx-noL2", f"{op}-{cols}-noL2.ptx")):
            mod = cupy.RawModule(path=str(scratch / path))
            cands[tag] = cupy_launch(mod, name, rows, warps, shared, ptrs, nparams)
        for rid, point in ours:
            launcher = prepare(catalog, rid, {"rows": rows, "cols": cols}, {**point, "dtype": "float32"})
            pool = {"x": from_torch(x), "weight": from_torch(w), "bias": from_torch(b)}
            arrays = {n: pool[n] for n in launcher.contract.input_names}
            arrays.update({n: from_torch(y) for n in launcher.contract.output_names})
            cands[rid.split("/")[1]] = launcher.bind(arrays)
        ok = {}
        for tag, go in cands.items():
            y.fill_(float("nan"))
            got = go()
            torch.cuda.synchronize()
            res = got if tag == "torch-compile" else y
            err = ((res - ref).abs() / (ref.abs() + 1e-3)).max().item()
            ok[tag] = err
        times = {t: [] for t in cands}
        for _ in range(2):
            for tag, go in cands.items():
                t = time_calls([go], min_reps=30, max_reps=200)
                times[tag].append(t.median_ms)
        print(f"\n{op} fp32 {rows}x{cols}  ({nbytes / 2**20:.0f} MiB moved)")
        print(f"{'candidate':22s} {'GB/s #1':>8s} {'GB/s #2':>8s} {'vs torch-compile':>17s} {'max rel err':>12s}")
        base = statistics.mean(nbytes / (m * 1e-3) / 1e9 for m in times["torch-compile"])
        for tag in cands:
            g = [nbytes / (m * 1e-3) / 1e9 for m in times[tag]]
            rel = statistics.mean(g) / base - 1
            print(f"{tag:22s} {g[0]:8.0f} {g[1]:8.0f} {rel:+16.1%} {ok[tag]:12.2e}")
            rows_out.append(dict(op=op, rows=rows, cols=cols, candidate=tag, gbps_1=f"{g[0]:.1f}",
                                 gbps_2=f"{g[1]:.1f}", ms_1=f"{times[tag][0]:.5f}", ms_2=f"{times[tag][1]:.5f}",
                                 max_rel_err=f"{ok[tag]:.3e}", nparams=nparams, shared=shared))
    with open(OUT / "triton-ab.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows_out[0]))
        wr.writeheader(); wr.writerows(rows_out)


if __name__ == "__main__":
    main()
