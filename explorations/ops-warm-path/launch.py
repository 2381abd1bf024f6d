"""Why a ctypes cuLaunchKernel costs more host time than torch's whole softmax: the same launch by
ctypes.CDLL (GIL released), ctypes.PyDLL (GIL held), CuPy's binding and torch's own launch."""
import ctypes
import time

import torch

import epldb.ops as ops
from epldb.ops import dispatch
from epldb.ops.warm import tensor_key

BURST, ROUNDS = 50, 100


def host(fn):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(BURST):
            fn()
        best = min(best, (time.perf_counter() - t0) / BURST * 1e6)
    return best


x = torch.randn(4, 1000, device="cuda")
y = torch.empty_like(x)
ops.softmax(x)
call = dispatch.dispatcher().calls[tensor_key("softmax", x)]
step = call.plan.steps[0]
s = torch._C._cuda_getCurrentRawStream(0)
u, vp = ctypes.c_uint, ctypes.c_void_p
protos = {}
for name, lib in (("CDLL", ctypes.CDLL("libcuda.so.1")), ("PyDLL", ctypes.PyDLL("libcuda.so.1"))):
    f = lib.cuLaunchKernel
    f.argtypes = [vp, u, u, u, u, u, u, u, vp, vp, vp]
    f.restype = ctypes.c_int
    protos[name] = f
import cupy
drv = cupy.cuda.driver
fp = step.function.ptr
g, b = step.grid, step.block
print("grid", g, "block", b, "shared", step.shared, "params", len(step.values), flush=True)
for k in range(2):
    rows = [
        ("ctypes CDLL cuLaunchKernel", lambda f=protos["CDLL"]: f(fp, *g, *b, step.shared, s, step.params_at, None)),
        ("ctypes PyDLL cuLaunchKernel", lambda f=protos["PyDLL"]: f(fp, *g, *b, step.shared, s, step.params_at, None)),
        ("cupy driver.launchKernel", lambda: drv.launchKernel(fp, *g, *b, step.shared, s, step.params_at, 0)),
        ("torch.neg(x, out=y)", lambda: torch.neg(x, out=y)),
        ("torch.softmax(x)", lambda: torch.softmax(x, -1)),
        ("ctypes no-op (cuCtxGetCurrent)", None),
    ]
    ctx = ctypes.c_void_p()
    cur = ctypes.CDLL("libcuda.so.1").cuCtxGetCurrent
    rows[-1] = (rows[-1][0], lambda: cur(ctypes.byref(ctx)))
    for name, fn in rows:
        print(f"{name:<34} {host(fn):8.2f}", flush=True)
import os
print([l.split()[-1] for l in open(f"/proc/{os.getpid()}/maps") if "libcuda" in l][:3])
print("CUDA_MODULE_LOADING", os.environ.get("CUDA_MODULE_LOADING"), "LAUNCH_BLOCKING", os.environ.get("CUDA_LAUNCH_BLOCKING"))
