"""Contract ``row-logsumexp``: the logsumexp of every row of a matrix (the logsumexp operator).

The contract of the logsumexp operator's own realizations (catalog/operators/logsumexp.yaml):
``x`` is ``rows x cols`` elements of ``dtype`` (float32 or bfloat16), row-major and contiguous;
``out[r] = m[r] + log l[r]``, float32, with ``m[r] = max_j x[r, j]`` and
``l[r] = sum_j exp(x[r, j] - m[r])`` (the row-softmax-state of the row). The reference is float64
over the inputs' exact values.

Convention for -inf: elements may be -inf (masked entries, exp(-inf) = 0). A row whose entries are
ALL -inf has m = -inf and l = 0, and out = -inf (the log of an empty sum; torch.logsumexp returns
-inf too). Inputs never hold +inf or NaN.

Inputs: those of row-softmax-state (epldb/contracts/row_softmax_state.py): values of magnitude
1/64..4 per row, every 4th row offset by 5000..10000 (where exp(x) overflows float32 by far),
-inf at fixed places in rows r % 5 in (2, 3), and row rows // 2 all -inf when rows > 2.

Minimal traffic: read ``rows * cols * sizeof(T)`` bytes once, write ``4 * rows`` bytes: a pure
read stream, so the figure of merit is GB/s against the READ ceiling.

Kernel arguments: ``(x, out, rows, cols)``.

Tolerance (max_rel and rel_l2 over out), both dtypes (the output is float32 either way): m is
exact; log l carries the relative error of l (below 2e-6 in the realizations' worst order, see
row-softmax-state) as an absolute error, and the sum m + log l is rounded to float32, at most
2^-24 of |out|. At every verification shape of two rows or more, row 1 sits at an offset of 5000
or more, so the normwise scale max |out| is at least 5000: the final rounding (6e-8) dominates and
log l's error counts at most 4e-10. Replayed in float32 (tests/contracts/test_row_logsumexp.py,
4 lanes per row, online fold): 6.6e-8 at most. 1e-6 leaves a margin of 15. What that normwise
figure cannot see, because every row is weighed against |out| of about 1e4: a lost 16-byte
vector moves its row's out by about 4 / cols and fails only in rows of up to about 200 elements
(row-softmax-state checks l itself, relative to the largest l); wrong rows, a wrong or unguarded
max, unwritten outputs (NaN) and a finite value where -inf is due are caught at every shape.

Peers: torch.logsumexp(x, dim=1) eager and torch.compile of the same call (static shapes). They
return the input dtype: a bfloat16 result is widened to float32 when the checker reads it,
outside the timing (peers.as_float32), and the bfloat16 peers are held to 2^-7: their result is
rounded to bfloat16 (2^-8 of |out|), and eager PyTorch also rounds x - max and its exponentials
to bfloat16 (each term off by up to 1.6%, at most ~1e-6 of the largest |out| in all). float32
peers are held to the contract's tolerance.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import Arrays, Peer, Point, Shape, Tolerance
from epldb.contracts.peers import as_float32, bfloat16_loosened, torch_peers
from epldb.contracts.row_softmax_state import (
    softmax_state_float64,
    softmax_state_inputs,
)
from epldb.contracts.rows import RowContract


def logsumexp_float64(x: Any, xp: Any = np) -> Any:
    """m + log l of every row of a float64 [rows, cols] array; an all -inf row gives -inf."""
    m, l = softmax_state_float64(x, xp)
    return xp.where(l > 0, m + xp.log(xp.where(l > 0, l, 1.0)), -xp.inf)


class RowLogSumExp(RowContract):
    name: ClassVar[str] = "row-logsumexp"
    summary: ClassVar[str] = (
        "Per row of a row-major [rows, cols] matrix: out = m + log l, float32 (all -inf row: -inf)."
    )
    output_names: ClassVar[tuple[str, ...]] = ("out",)
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=1e-6, rel_l2=1e-6),
        "bfloat16": Tolerance(max_rel=1e-6, rel_l2=1e-6),
    }
    exact_names: ClassVar[tuple[str, ...]] = ("out",)  # a row of one element: x + log 1 = x

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        return {"x": softmax_state_inputs(shape, dtype, rng, xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = self.exact_inputs(inputs, shape, point, xp)["x"]
        return {"out": logsumexp_float64(x, xp)}

    def flops(self, shape: Shape, point: Point) -> int:
        # Per element: max, subtract, scale by log2 e, exponential, add (one log per row).
        return 5 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        return torch_peers("torch.logsumexp(x, dim=1) in the input dtype", _logsumexp_torch, "out",
                           convert=as_float32, note="a bf16 result widened outside the timing; held to 2^-7",
                           tolerance=bfloat16_loosened(self.tolerance, 2.0**-7))


def _logsumexp_torch(x: Any) -> Any:
    import torch

    return torch.logsumexp(x, dim=1)
