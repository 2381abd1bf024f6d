"""Contract ``device-reduce``: a whole tensor to ONE float32 value (sum or max), every SM working.

``x`` has ``n`` elements of ``dtype`` (float32 or bfloat16); the output ``out`` is one float32,
the sum or the max of all ``n`` values, accumulated in float32 whatever the input type. How the
grid's blocks combine (a second launch, atomics, the last block to finish, clusters) is the
realization's business; the contract sees one number.

Minimal traffic: read ``n * sizeof(T)`` bytes, write 4. Work: ``n - 1`` binary ops. Every
realization is memory-bound by far (an fp32 add per 4 bytes read), so the figure of merit is GB/s
against the device's read bandwidth, measured in the same run.

Inputs, and why the sum's relative error is meaningful
------------------------------------------------------
The verifier judges ``|out - ref| / |ref|``. A float32 summation of any order is accurate to about
``d * eps * sum|x|`` at worst (``d`` the longest chain of dependent additions, ``eps = 2^-24``), and
to about ``sqrt(d) * eps * sum|x|`` typically; relative to ``|ref|`` that is only meaningful if
``|ref|`` is not tiny against ``sum|x|``. Random values of both signs cancel (``|sum|`` of ``n``
zero-mean terms is about ``sqrt(n)`` times one term while ``sum|x|`` is ``n`` times), so a correct
kernel would fail on an unlucky draw. The inputs are therefore built so that cancellation is
bounded by construction while both signs remain:

* elements come in pairs ``(s*a, -s*a*u)`` in random order within the pair, with ``a`` log-uniform
  in ``[2^-8, 2^8)`` (the block-tile-reduce contract's wide range), ``u`` log-uniform in
  ``[2^-8, 2^-1)``, and one sign ``s = +-1`` drawn per instance; an odd ``n`` ends with an
  unpaired ``s*a``;
* every pair sums to ``s*a*(1-u)``, at least half of ``a`` in magnitude, while it contributes
  ``a*(1+u) <= 1.5*a`` to ``sum|x|``; so ``|ref| >= sum|x| / 3`` for every ``n`` and every draw
  (up to bfloat16 rounding of ``a`` and ``a*u``, a factor within ``1 +- 2^-8``);
* with ``s = -1`` the large values are negative: the sum is negative, the max is one of the small
  positive values, and for ``n = 1`` the max is negative, which tests the max's identity
  (``-inf``, not 0) in every thread that folds nothing.

The tolerance (1e-4 relative to ``|ref|``, so ``3e-5`` relative to ``sum|x|``) covers the worst-case
bound for dependency chains up to about 500 additions and the typical error of every realization
(per-thread chains of up to about 2000 elements at ``n = 2^29`` on a 132x8-block grid, then trees:
about ``sqrt(2000) * 6e-8 = 3e-6`` relative to ``sum|x|``) with a margin of 10x or more. The max is
exact: any nonzero error is a bug.

The reference is computed in float64 from the inputs' exact values (NumPy's and CuPy's pairwise
sums: error about ``log2(n) * 2^-53`` relative to ``sum|x|``, zero for the max).
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
    paired_values,
)
from epldb.contracts.dtypes import from_float64, itemsize, to_float64
from epldb.contracts.peers import cupy_peer, torch_compile_peer, torch_eager_peer

class DeviceReduce(Contract):
    name: ClassVar[str] = "device-reduce"
    summary: ClassVar[str] = "The whole input reduced to ONE float32 value (sum or max), float32 accumulation."
    shape_vars: ClassVar[tuple[str, ...]] = ("n",)
    input_names: ClassVar[tuple[str, ...]] = ("x",)
    output_names: ClassVar[tuple[str, ...]] = ("out",)
    required_params: ClassVar[tuple[str, ...]] = ("op",)
    verify_shapes: ClassVar[tuple[Shape, ...]] = (
        {"n": 1},  # one block, every other thread folds nothing: the identity matters
        {"n": 31},  # less than a warp, and not a multiple of any vector width
        {"n": 4097},  # one element past a power of two
        {"n": 1_000_003},  # prime
        {"n": 50_000_017},  # prime, large: many blocks, every grid-stride loop runs, ragged tail
    )
    bench_shapes_full: ClassVar[tuple[Shape, ...]] = (
        {"n": 1 << 20},  # 4 MiB fp32: launch- and latency-bound
        {"n": 1 << 22},
        {"n": 1 << 24},  # 64 MiB fp32: about the L2 size
        {"n": 1 << 26},  # 256 MiB fp32: > 4x L2
        {"n": 1 << 28},  # 1 GiB fp32
        {"n": 1 << 29},  # 1 GiB bf16 (2 GiB fp32)
        {"n": 100_000_007},  # prime: a ragged tail at bandwidth scale
    )
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        {"n": 1 << 20},
        {"n": 1 << 28},
    )
    #: Between the bench sizes, none a power of two (``bench --sweep``).
    sweep_shapes: ClassVar[tuple[Shape, ...]] = ({"n": 3_000_017}, {"n": 33_554_467}, {"n": 150_000_001})
    # Relative to |ref|, which the inputs keep above sum|x| / 3 (module docstring). bfloat16
    # inputs accumulate in float32 from their exact values, so they get float32's tolerance.
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=1e-4, rel_l2=1e-4),
        "bfloat16": Tolerance(max_rel=1e-4, rel_l2=1e-4),
    }

    @staticmethod
    def op(point: Point) -> str:
        return str(point.get("op", "sum"))

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("x", self.dtype_of(point), shape["n"])]

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("out", "float32", 1)]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        return {"n": int(arrays["x"].size)}

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        # Depends on shape and dtype only: bench shares one input set between sum and max.
        return {"x": from_float64(paired_values(rng, shape["n"], xp), dtype, xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = to_float64(inputs["x"], self.dtype_of(point), xp)
        r = x.sum() if self.op(point) == "sum" else x.max()
        return {"out": xp.asarray(r, dtype=xp.float64).reshape(1)}

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        return shape["n"] * itemsize(self.dtype_of(point)) + 4

    def flops(self, shape: Shape, point: Point) -> int:
        return shape["n"] - 1

    def peer_params(self, point: Point) -> dict[str, Any]:
        return {"dtype": self.dtype_of(point), "op": self.op(point)}

    def peers(self) -> tuple[Peer, ...]:
        return (
            torch_eager_peer("PyTorch eager: torch.sum(x, dtype=float32) / torch.amax(x)", _reduce_torch, "out", _op),
            # dynamic=True: one graph for every n, so the run does not recompile per shape.
            torch_compile_peer("torch.compile of the same function", _reduce_torch, "out", _op, dynamic=True),
            cupy_peer("CuPy cupy.sum(x, dtype=float32) / cupy.max(x) (CUB DeviceReduce when CuPy's "
                      "cub accelerator is on)", _reduce_cupy, "out", _op),
        )


# --- peers -----------------------------------------------------------------------------------------
# Each returns a float32 array of one element (torch or CuPy).


def _op(contract: Contract, shape: Shape, point: Point) -> tuple[str]:
    return (DeviceReduce.op(point),)


def _reduce_torch(x: Any, op: str) -> Any:
    import torch

    if op == "sum":
        return torch.sum(x, dtype=torch.float32).view(1)
    return torch.amax(x).to(torch.float32).view(1)


def _reduce_cupy(x: Any, op: str) -> Any:
    import cupy

    if op == "sum":
        r = cupy.sum(x, dtype=cupy.float32)
    else:
        r = cupy.max(x).astype(cupy.float32, copy=False)
    return r.reshape(1)
