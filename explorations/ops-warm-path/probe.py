"""Where a warm epldb.ops call spends its host time (H100/H200 host): each piece timed alone with
the burst method of epldb.ops.overhead, beside the whole call and torch's own."""
import time

import torch
import torch.nn.functional as F

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


for dt in (torch.float32, torch.bfloat16):
    x = torch.randn(4, 1000, device="cuda", dtype=dt)
    w = torch.randn(1000, device="cuda", dtype=dt)
    t = torch.randint(0, 1000, (4,), device="cuda")
    for name, first in (("softmax", lambda: ops.softmax(x)), ("rmsnorm", lambda: ops.rmsnorm(x, w)),
                        ("cross_entropy", lambda: ops.cross_entropy(x, t))):
        t0 = time.perf_counter()
        first()
        torch.cuda.synchronize()
        print(f"first {name} call ({dt}): {time.perf_counter() - t0:.1f} s", flush=True)
    d = dispatch.dispatcher()
    call = d.calls[tensor_key("softmax", x)]
    y = torch.empty_like(x)
    ptrs = [x.data_ptr(), y.data_ptr()]
    raw = torch._C._cuda_getCurrentRawStream
    step = call.plan.steps[0]
    cu = dispatch._cu_launch()
    s = raw(0)
    rows = [
        ("torch.softmax", lambda: torch.softmax(x, -1)),
        ("ops.softmax (warm)", lambda: ops.softmax(x)),
        ("  TorchCall alone", lambda: call((x,), ())),
        ("  enqueue alone (a launch)", lambda: d.enqueue(call.plan, 0, ptrs, (), s)),
        ("  cuLaunchKernel (CuPy binding)", lambda: cu(step.function.ptr, *step.grid, *step.block, step.shared, s,
                                                   step.params_at, 0)),
        ("  torch.empty_like", lambda: torch.empty_like(x)),
        ("  x.new_empty((4,), float32)", lambda: x.new_empty((4,), dtype=torch.float32)),
        ("  tensor_key", lambda: tensor_key("softmax", x)),
        ("  raw stream", lambda: raw(0)),
        ("  x.data_ptr()", lambda: x.data_ptr()),
        ("  x.is_contiguous()", lambda: x.is_contiguous()),
        ("F.rms_norm", lambda: F.rms_norm(x, (1000,), w, 1e-6)),
        ("ops.rmsnorm (warm)", lambda: ops.rmsnorm(x, w, eps=1e-6)),
        ("F.cross_entropy none", lambda: F.cross_entropy(x, t, reduction="none")),
        ("ops.cross_entropy none", lambda: ops.cross_entropy(x, t, reduction="none")),
        ("F.cross_entropy mean", lambda: F.cross_entropy(x, t)),
        ("ops.cross_entropy mean", lambda: ops.cross_entropy(x, t)),
        ("torch.logsumexp", lambda: torch.logsumexp(x.float(), -1) if dt != torch.float32 else torch.logsumexp(x, -1)),
        ("ops.logsumexp", lambda: ops.logsumexp(x)),
        ("torch.sum(x)", lambda: x.sum(dtype=torch.float32)),
        ("ops.sum(x)", lambda: ops.sum(x)),
    ]
    print(f"--- {dt}, 4 x 1000: host microseconds a call (best of {ROUNDS} bursts of {BURST})")
    for name, fn in rows:
        print(f"{name:<34} {host(fn):8.2f}")
