"""Contract ``row-log-softmax``: the log-softmax of every row of a matrix (the log-softmax operator).

The contract of the log-softmax operator's own realizations (catalog/operators/log-softmax.yaml):
``x`` is ``rows x cols`` elements of ``dtype`` (float32 or bfloat16), row-major and contiguous;
``y`` has the same shape and dtype (as torch.log_softmax returns) with
``y[r, j] = x[r, j] - m[r] - log l[r]``, ``m[r] = max_j x[r, j]``,
``l[r] = sum_j exp(x[r, j] - m[r])`` (the row-softmax-state of the row). The reference is float64
over the inputs' exact values.

Convention for -inf: elements may be -inf (masked entries); their outputs are exactly -inf (the log
of softmax's exact 0) and the row is the log-softmax of its finite entries. A row whose entries are
ALL -inf has m = -inf and l = 0: its output is all -inf, the log of row-softmax's all-zeros
convention (computed as x - 0 - 0: the shift and log l are taken as 0 when l = 0), not
torch.log_softmax's NaN. Inputs never hold +inf or NaN.

Inputs: those of row-softmax-state (epldb/contracts/row_softmax_state.py): values of magnitude
1/64..4 per row, every 4th row offset by 5000..10000 (x - m must be formed exactly: y is of the
size of x - m, up to about 8 + log cols, however large x is), -inf at fixed places in rows
r % 5 in (2, 3), and row rows // 2 all -inf when rows > 2.

Minimal traffic: read ``rows * cols * sizeof(T)`` bytes once and write as many, as row-softmax:
the figure of merit is GB/s against the COPY ceiling. A realization that rereads x is charged the
minimal 2 bytes per input byte.

Kernel arguments: ``(x, y, rows, cols)``.

Tolerance (max_rel and rel_l2 over the whole y): float32 — y = (x - m) - log l: x - m is exact
in the offset rows and rounded by at most 2^-24 * 8 elsewhere; log l carries the relative error of
l (row-softmax-state: below 2e-6 in the worst order its realizations use, on 100003-element rows)
as an absolute error, plus a rounding of log l (at most 2^-24 * 12); the output scale max |y| is 8
to 17 at every verification shape but the 1 x 1 one (whose y is exactly 0). Replayed in float32
(tests/contracts/test_row_log_softmax.py, 4 lanes per row, online fold): 2.1e-7 at most. 2e-6
keeps a margin of 10 (and is the state contract's 2e-5 on l as an absolute error in log l, over
an output scale of about 10); a lost 16-byte vector shifts its row by about 4 / cols and fails in
rows of up to about 10^5 elements. bfloat16 — the float32 y rounded once to bfloat16 at the store:
up to 2^-8 of the largest output in max_rel; 2^-7 (as row-softmax) leaves a factor 2. That scale is
large here: the offset rows hold multiples of 32 or 64 in bfloat16, so their outputs reach about
-64 and 2^-7 of it is 0.5 absolute; a lost vector is not caught in bfloat16 (a lost half of a
row's mass is), wrong rows and the conventions are. An output
that should be -inf must be exactly -inf; a poisoned (unwritten) output is NaN and fails on its own.

Peers: torch.log_softmax(x, dim=1) eager and torch.compile of the same call (static shapes), in
the input dtype. torch.log_softmax returns NaN for an all -inf row; the NaNs of the peer's output
are read as -inf when the checker reads it, outside the timing (this contract's convention;
peers.nan_as), so the peer is not failed for a convention it does not share.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import Arrays, Peer, Point, Shape, Tolerance
from epldb.contracts.peers import nan_as, torch_peers
from epldb.contracts.row_softmax_state import (
    softmax_state_float64,
    softmax_state_inputs,
)
from epldb.contracts.rows import RowMapContract


def shift_and_log_l(x: Any, xp: Any = np) -> tuple[Any, Any]:
    """Per row of a float64 [rows, cols] array: the shift m and log l, both taken as 0 for an all
    -inf row (so x - shift - log l keeps its -inf)."""
    m, l = softmax_state_float64(x, xp)
    shift = xp.where(m == -xp.inf, 0.0, m)
    log_l = xp.log(xp.where(l > 0, l, 1.0))
    return shift, log_l


def log_softmax_float64(x: Any, xp: Any = np) -> Any:
    """The log-softmax of every row of a float64 [rows, cols] array, as (x - m) - log l; a -inf
    element gives -inf, an all -inf row all -inf."""
    shift, log_l = shift_and_log_l(x, xp)
    return (x - shift[:, None]) - log_l[:, None]


class RowLogSoftmax(RowMapContract):
    name: ClassVar[str] = "row-log-softmax"
    summary: ClassVar[str] = (
        "Per row of a row-major [rows, cols] matrix: y = x - m - log l in the input dtype "
        "(-inf entries give -inf; all -inf row: all -inf)."
    )
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=2e-6, rel_l2=2e-6),
        "bfloat16": Tolerance(max_rel=2.0**-7, rel_l2=2.0**-7),
    }
    exact_names: ClassVar[tuple[str, ...]] = ("y",)  # a row of one element: x - x - log 1 = 0

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        return {"x": softmax_state_inputs(shape, dtype, rng, xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = self.exact_inputs(inputs, shape, point, xp)["x"]
        return {"y": log_softmax_float64(x, xp)}

    def flops(self, shape: Shape, point: Point) -> int:
        # Per element: max, subtract, scale by log2 e, exponential, add; then subtract the shift
        # and log l (one log per row, not counted).
        return 7 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        return torch_peers("torch.log_softmax(x, dim=1) in the input dtype", _log_softmax_torch, "y",
                           convert=nan_as(-np.inf), note="NaN of an all -inf row read as -inf outside the timing")


def _log_softmax_torch(x: Any) -> Any:
    import torch

    return torch.log_softmax(x, dim=1)
