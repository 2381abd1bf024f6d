"""The host time of a warm epldb.ops call, against PyTorch eager's own call for the same op, in one
process on one GPU: ``python3 -m epldb.ops.overhead [--out FILE]`` prints a table and, with
``--out``, writes the rows as JSON (tests/ops/test_ops.py runs it under ``pytest -m gpu`` and
writes ``$OUT/ops-overhead.json`` on a lent machine).

At the small shapes measured (4 x 1000 by default) the figure wanted is the host's: what a model
pays per op on the CPU before the GPU sees the launch. It is timed over short bursts of warm calls
(after ``warmup`` untimed ones, the first of which selects, compiles and plans) that never wait on
the GPU; the wall time of a long loop with one synchronize is given beside it, since a kernel whose
GPU time exceeds the host's sets that one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

SHAPE = (4, 1000)
BURST = 50


def _per_call(torch: Any, fn: Callable[[], Any], calls: int, warmup: int) -> tuple[float, float]:
    """(host, wall) microseconds a call. Host: the enqueue time alone, the best of ``calls // BURST``
    bursts of ``BURST`` calls each timed from a synchronized start to the last call's return (a
    burst stays below the launch queue's depth, so a kernel slower than the host never blocks it).
    Wall: ``calls`` calls and one synchronize, over the count (the larger of host and GPU time)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    host = float("inf")
    for _ in range(max(1, calls // BURST)):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(BURST):
            fn()
        host = min(host, (time.perf_counter() - t0) / BURST * 1e6)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return host, (time.perf_counter() - t0) / calls * 1e6


def measure(shape: Sequence[int] = SHAPE, dtypes: Sequence[str] = ("float32", "bfloat16"), calls: int = 5000,
            warmup: int = 200) -> list[dict[str, Any]]:
    """One row per (op, dtype): microseconds per warm call of epldb.ops and of torch eager."""
    import torch
    import torch.nn.functional as F

    import epldb.ops as ops
    from epldb.device import device_info

    device = device_info().slug
    rows, cols = int(shape[0]), int(shape[-1])
    out: list[dict[str, Any]] = []
    for dtype in dtypes:
        dt = getattr(torch, dtype)
        x = torch.randn(*shape, device="cuda", dtype=dt)
        w = torch.randn(cols, device="cuda", dtype=dt)
        target = torch.randint(0, cols, tuple(shape[:-1]), device="cuda")
        cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
            ("softmax", lambda: ops.softmax(x), lambda: torch.softmax(x, -1)),
            ("rmsnorm", lambda: ops.rmsnorm(x, w, eps=1e-6), lambda: F.rms_norm(x, (cols,), w, 1e-6)),
            ("cross_entropy(reduction='none')", lambda: ops.cross_entropy(x, target, reduction="none"),
             lambda: F.cross_entropy(x, target, reduction="none")),
            ("cross_entropy", lambda: ops.cross_entropy(x, target), lambda: F.cross_entropy(x, target)),
            ("logsumexp", lambda: ops.logsumexp(x), lambda: torch.logsumexp(x, -1)),
            ("sum (dim=-1)", lambda: ops.sum(x, dim=-1), lambda: x.sum(-1, dtype=torch.float32)),
        ]
        for op, ours, theirs in cases:
            (eh, ew), (th, tw) = _per_call(torch, ours, calls, warmup), _per_call(torch, theirs, calls, warmup)
            out.append({"op": op, "dtype": dtype, "shape": f"{rows}x{cols}", "device": device, "calls": calls,
                        "epldb_us": round(eh, 2), "torch_us": round(th, 2),
                        "epldb_wall_us": round(ew, 2), "torch_wall_us": round(tw, 2)})
    return out


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'op':<32} {'dtype':<9} {'shape':<8} {'host us: epldb':>14} {'torch':>7} {'wall us: epldb':>14} {'torch':>7}"]
    for r in rows:
        lines.append(f"{r['op']:<32} {r['dtype']:<9} {r['shape']:<8} {r['epldb_us']:>14.2f} {r['torch_us']:>7.2f} "
                     f"{r['epldb_wall_us']:>14.2f} {r['torch_wall_us']:>7.2f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m epldb.ops.overhead", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the rows as JSON here")
    ap.add_argument("--calls", type=int, default=5000)
    args = ap.parse_args(argv)
    rows = measure(calls=args.calls)
    print(table(rows))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
