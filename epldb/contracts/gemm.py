"""Contract ``gemm``: C = A·Bᵀ (or A·B) in bfloat16 with float32 accumulation (the gemm operator).

The contract of the gemm operator's realizations (catalog/operators/gemm.yaml). Shape variables
``m``, ``n``, ``k``. ``a`` is ``m x k`` bfloat16, row-major and contiguous. The parameter
``layout`` says how ``b`` is stored: ``nt`` (the default, a linear layer's weight): ``b`` is
``n x k`` row-major and ``c = a · bᵀ``; ``nn``: ``b`` is ``k x n`` row-major and ``c = a · b``.
``c`` is ``m x n`` bfloat16 row-major: every product accumulated in float32 (or wider) and rounded
to bfloat16 once, at the store. Rows are 16-byte aligned: ``k % 8 == 0`` (and ``n % 8 == 0`` for
``nn``); m, n and k need not divide any tile, so every realization handles ragged edges in m, n
and k (the verify shapes divide by no tile of 16 or more in m and n, and by no k-tile of 64 or
more in k). Kernel arguments: ``(a, b, c, m, n, k)``.

Inputs: ``a[i, p] = z · r_i · s_p`` and ``b[j, p] = z' · t_j · s_p`` rounded to bfloat16, z of
both signs and magnitudes uniform in [0.5, 1.5) (never zero), row scales r_i, t_j and k scales s_p
log-uniform over 2^-2..2^2: rows of different scale make a row or column written to the wrong
place show, and the last k column has s = 8, so a dropped ragged k tail changes every output by
far more than the tolerance. The float64 reference is the product of the inputs' exact values,
computed where the inputs live (the device in verification, CuPy's float64 matmul).

Tolerance (max |c - ref| / max |ref|, and the normwise relative L2 error): the bfloat16 rounding
of the output is at most 2^-9 of |c| (so of max |ref|), and float32 accumulation adds about
sqrt(k) · 2^-24 · |a||b| a term (random-sign rounding errors), which against max |ref|, itself
of order sqrt(k) · |a||b| at these inputs, is near 2^-24: negligible. 2^-8 for both figures
leaves a factor 2 over the output rounding; a lost k tile (16 or more terms of one output) or a
wrong row fails it. A poisoned (unwritten) output is NaN and fails.

Traffic: A, B read once and C written once (2·(mk + nk + mn) bytes), the fewest any kernel moves;
the figure of merit is the rate, 2·m·n·k flops, against the ``mma-bf16`` rate ceiling measured in
the run (epldb.bench.measure_rate_ceilings: cuBLAS through torch.matmul at 8192³, the best any
kernel on this board is known to reach).

Peers: torch.matmul (cuBLAS, bf16 in, fp32 accumulate, bf16 out) eagerly, and the same call through
torch.compile with max-autotune over Triton's GEMM templates alone (epldb.contracts.peers'
MAX_AUTOTUNE_TRITON: the configurations inductor times per shape, the fastest kept), the kernel a
user of torch.compile gets where Triton beats cuBLAS. Its tuning takes tens of seconds a shape, so
like every torch.compile peer it is left out of ``--quick`` runs.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import (
    Arrays,
    ArraySpec,
    Contract,
    Peer,
    Point,
    Shape,
    Tolerance,
    uniform01,
)
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.peers import MAX_AUTOTUNE_TRITON, STATIC_RECOMPILE_LIMIT, torch_compile_peer, torch_eager_peer

#: The scales of rows and of k columns: log-uniform over 2^-SCALE_LOG2 .. 2^SCALE_LOG2.
SCALE_LOG2 = 2.0
#: The scale of the last k column: a dropped ragged k tail shows in every output.
LAST_K_SCALE = 8.0
LAYOUTS = ("nt", "nn")


def _shape(m: int, n: int, k: int) -> Shape:
    return {"m": m, "n": n, "k": k}


def _log_scales(rng: Any, count: int, xp: Any) -> Any:
    return xp.exp2((2.0 * uniform01(rng, count) - 1.0) * SCALE_LOG2)


def _signed(rng: Any, count: int, xp: Any) -> Any:
    magnitude = 0.5 + uniform01(rng, count)
    return xp.where(uniform01(rng, count) < 0.5, -1.0, 1.0) * magnitude


class Gemm(Contract):
    name: ClassVar[str] = "gemm"
    summary: ClassVar[str] = (
        "C = A·Bᵀ (layout nt, B [n, k]) or A·B (layout nn, B [k, n]) in bfloat16, A [m, k] row-major, "
        "float32 accumulation, C [m, n] bfloat16 rounded once."
    )
    shape_vars: ClassVar[tuple[str, ...]] = ("m", "n", "k")
    input_names: ClassVar[tuple[str, ...]] = ("a", "b")
    output_names: ClassVar[tuple[str, ...]] = ("c",)
    verify_shapes: ClassVar[tuple[Shape, ...]] = (
        _shape(1, 8, 8),  # one output row, one k step of 8: every edge at once
        _shape(257, 263, 264),  # m, n odd, k = 4 k-tiles of 64 + 8
        _shape(1000, 4097, 1000),  # n past a power of two by one, k = 15 tiles of 64 + 40
        _shape(128, 4096, 4096),  # a linear layer's decode-sized batch
        _shape(8191, 1031, 2056),  # m one short of 8192, k = 32 tiles of 64 + 8
    )
    bench_shapes_full: ClassVar[tuple[Shape, ...]] = (
        _shape(8192, 8192, 8192),
        _shape(4096, 4096, 4096),
        *(_shape(m, n, k) for m in (128, 512, 4096)
          for n, k in ((4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096))),
        _shape(4097, 4097, 4096),
    )
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        _shape(4096, 4096, 4096),
        _shape(8192, 8192, 8192),
        _shape(512, 4096, 4096),
        _shape(4096, 14336, 4096),
        _shape(4097, 4097, 4096),
    )
    #: Off the bench set (bench --sweep, for select --evaluate): the output sizes between the
    #: linear-layer rows (m 256, 1024, 2048), the decode rows (m 1, 16, 64) and m 16384.
    sweep_shapes: ClassVar[tuple[Shape, ...]] = (
        *(_shape(m, n, k) for m in (256, 1024, 2048) for n, k in ((4096, 4096), (14336, 4096), (4096, 14336))),
        *(_shape(m, n, k) for m in (1, 16, 64) for n, k in ((4096, 4096), (14336, 4096))),
        *(_shape(16384, n, k) for n, k in ((4096, 4096), (4096, 14336))),
    )
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "bfloat16": Tolerance(max_rel=2.0**-8, rel_l2=2.0**-8),
    }
    ceiling: ClassVar[str] = "copy"
    rate_ceiling: ClassVar[str | None] = "mma-bf16"

    @staticmethod
    def layout(point: Point) -> str:
        layout = str(point.get("layout", "nt"))
        if layout not in LAYOUTS:
            raise ValueError(f"gemm layout {layout!r} is not one of {', '.join(LAYOUTS)}")
        return layout

    def dtype_of(self, point: Point) -> str:
        return str(point.get("dtype", "bfloat16"))

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        m, n, k = shape["m"], shape["n"], shape["k"]
        return [ArraySpec("a", "bfloat16", m * k), ArraySpec("b", "bfloat16", n * k)]

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("c", "bfloat16", shape["m"] * shape["n"])]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        m, k = (int(d) for d in arrays["a"].shape)
        b = arrays["b"].shape
        n = int(b[0]) if self.layout(point) == "nt" else int(b[1])
        return _shape(m, n, k)

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        m, n, k = shape["m"], shape["n"], shape["k"]
        s = _log_scales(rng, k, xp)
        s[k - 1] = LAST_K_SCALE
        a = _signed(rng, m * k, xp).reshape(m, k) * _log_scales(rng, m, xp)[:, None] * s[None, :]
        b = _signed(rng, n * k, xp).reshape(n, k) * _log_scales(rng, n, xp)[:, None] * s[None, :]
        if self.layout(point) == "nn":
            b = xp.ascontiguousarray(b.T)
        return {"a": from_float64(a, "bfloat16", xp), "b": from_float64(b, "bfloat16", xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        m, n, k = shape["m"], shape["n"], shape["k"]
        a = to_float64(inputs["a"], "bfloat16", xp).reshape(m, k)
        if self.layout(point) == "nt":
            b = to_float64(inputs["b"], "bfloat16", xp).reshape(n, k).T
        else:
            b = to_float64(inputs["b"], "bfloat16", xp).reshape(k, n)
        return {"c": (a @ b).reshape(m * n)}

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        m, n, k = shape["m"], shape["n"], shape["k"]
        return 2 * (m * k + n * k + m * n)

    def flops(self, shape: Shape, point: Point) -> int:
        return 2 * shape["m"] * shape["n"] * shape["k"]

    def peer_params(self, point: Point) -> dict[str, Any]:
        return {"dtype": self.dtype_of(point), "layout": self.layout(point)}

    def peers(self) -> tuple[Peer, ...]:
        return (torch_eager_peer("PyTorch eager: torch.matmul (cuBLAS), bf16 in, fp32 accumulate, bf16 out",
                                 _matmul_torch, "c", _mnk_layout),
                torch_compile_peer("torch.compile of the same call, max-autotune over Triton's GEMM templates "
                                   "(static shapes, no CUDA graphs)", _matmul_torch, "c", _mnk_layout,
                                   dynamic=False, recompile_limit=STATIC_RECOMPILE_LIMIT,
                                   options=MAX_AUTOTUNE_TRITON))


def _mnk_layout(contract: Contract, shape: Shape, point: Point) -> tuple[int, int, int, str]:
    return shape["m"], shape["n"], shape["k"], Gemm.layout(point)


def _matmul_torch(a: Any, b: Any, m: int, n: int, k: int, layout: str) -> Any:
    import torch

    lhs = a.view(m, k)
    rhs = b.view(n, k).t() if layout == "nt" else b.view(k, n)
    return torch.matmul(lhs, rhs).view(m * n)
