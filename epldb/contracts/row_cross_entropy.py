"""Contract ``row-cross-entropy``: the cross-entropy loss of every row of logits (the operator's forward).

The contract of the cross-entropy operator's own realizations (catalog/operators/cross-entropy.yaml):
``x`` is ``rows x cols`` logits of ``dtype`` (float32 or bfloat16), row-major and contiguous;
``target`` is ``rows`` int64 class indices; ``loss[r] = logsumexp(x[r, :]) - x[r, target[r]]``,
float32, one per row: reduction "none" (no mean over rows) and no label smoothing. A row whose
target is ``ignore_index`` (an int scalar of the problem, -100 as in PyTorch; a kernel argument at
run time) gives 0, and a target outside [0, cols) otherwise gives NaN (a kernel never reads outside
the row; PyTorch raises instead). With m and l the row's softmax state (row-softmax-state), loss =
(m - x[r, t]) + log l, the form the reference uses (float64 over the inputs' exact values).

Inputs: the logits of row-softmax-state (epldb/contracts/row_softmax_state.py): values of magnitude
1/64..4 per row, every 4th row offset by 5000..10000, -inf at fixed places in rows r % 5 in (2, 3)
(masked classes) and the all -inf row rows // 2. That row and every row r % 8 == 5 are ignored
(target = ignore_index: a padded position), so their loss is exactly 0; every other row's target is
drawn uniformly among its finite entries, so its loss is finite and at least 0 (at most about 8 +
log cols in float32; in bfloat16 the offset rows hold multiples of 32 or 64, so a target below the
max gives a loss near 32 or 64). Targets outside the row are not in the inputs (the peers raise on
them): tests/ops checks their NaN.

Minimal traffic: read the logits once (``rows * cols * sizeof(T)`` bytes), the targets
(``8 * rows``), write ``4 * rows`` bytes: a read stream, GB/s against the READ ceiling. The
target logit is one more element of a row just read (from L2, not counted).

Kernel arguments: ``(x, target, loss, rows, cols, ignore_index)``.

Tolerance (max_rel and rel_l2 over loss), both dtypes (the loss is float32 either way): m - x_t is
exact in the offset rows (Sterbenz) and rounded by at most 2^-24 * 8 elsewhere; log l carries the
relative error of l as an absolute error (replayed, 4 lanes per row, online fold: up to 8.5e-6 on
100003-element bfloat16 rows, about 1e-6 on rows of a few thousand); the output scale max |loss|
is 6 to 17 (float32) or up to about 70 (bfloat16) at the verification shapes. Replayed in float32
(tests/contracts/test_row_cross_entropy.py): 4.9e-7 at most (the 4-lane order on 100003-element
rows), below 1e-7 elsewhere. 2e-6 keeps a margin of 4 over that pessimistic order, 20 over the
rest. The order ``lse - x_t``, which first rounds m + log l (about 1e4 in the offset rows) to
float32, loses up to half an ulp of 1e4 (4.9e-4) in a loss of about 10: replayed 2e-6 to 7e-5, so
it FAILS at the verification shapes with several offset rows; x - m must be formed before log l is
added, which is what the offset rows are there to check (torch.nn.functional.cross_entropy, going
through log_softmax, forms it). A lost 16-byte vector changes its row's loss by about 4 / cols and
fails in rows of up to about 10^5 elements; a wrong target index fails where the two logits
differ, wrong rows and unwritten outputs (NaN) at every shape.

Peers: torch.nn.functional.cross_entropy(x, target, ignore_index=ignore_index, reduction="none")
eager and torch.compile of the same call (static shapes), Liger-Kernel's and QuACK's. The loss of the
first three comes back in the input dtype: a bfloat16 loss is widened to float32 when the checker
reads it, outside the timing (peers.as_float32), and the bfloat16 peers are held to 2^-7
(log_softmax rounded to bfloat16 before the target is picked: up to 2^-8 of the largest loss).
float32 peers, and QuACK's float32 loss at both dtypes, are held to the contract's tolerance.
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
from epldb.contracts.peers import as_float32, bfloat16_loosened, liger_peer, quack_peer, torch_peers
from epldb.contracts.row_softmax_state import (
    neg_inf_mask,
    softmax_state_float64,
    softmax_state_inputs,
)
from epldb.contracts.rows import RowContract


IGNORE_INDEX = -100  # PyTorch's default


def cross_entropy_float64(x: Any, target: Any, ignore_index: int = IGNORE_INDEX, xp: Any = np) -> Any:
    """(m - x_t) + log l per row of float64 logits [rows, cols] and int64 targets [rows]; 0 where
    the target is ``ignore_index``, NaN where it is otherwise outside [0, cols)."""
    rows, cols = x.shape
    ignored = target == ignore_index
    valid = (target >= 0) & (target < cols) & ~ignored
    with np.errstate(invalid="ignore", divide="ignore"):
        m, l = softmax_state_float64(x, xp)
        x_t = x[xp.arange(rows), xp.where(valid, target, 0)]
        loss = (m - x_t) + xp.log(l)
    return xp.where(ignored, 0.0, xp.where(valid, loss, xp.nan))


def ignored_rows(rows: int, xp: Any = np) -> Any:
    """The rows the inputs ignore: every r % 8 == 5 and the all -inf row rows // 2 (see the module
    docstring)."""
    r = xp.arange(rows)
    return (r % 8 == 5) | ((r == rows // 2) & (rows > 2))


def finite_targets(mask: Any, rng: Any, xp: Any = np) -> Any:
    """One int64 class per row, uniform among the row's unmasked entries (``mask``: where the
    logits are -inf; a row with none gets class 0)."""
    rows, cols = mask.shape
    keys = uniform01(rng, rows * cols).reshape(rows, cols)
    return xp.argmax(xp.where(mask, -1.0, keys), axis=1).astype(xp.int64)


class RowCrossEntropy(RowContract):
    name: ClassVar[str] = "row-cross-entropy"
    summary: ClassVar[str] = (
        "Per row of row-major [rows, cols] logits and an int64 target: loss = logsumexp(x) - x[target], "
        "float32 (reduction none)."
    )
    input_names: ClassVar[tuple[str, ...]] = ("x", "target")
    output_names: ClassVar[tuple[str, ...]] = ("loss",)
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=2e-6, rel_l2=2e-6),
        "bfloat16": Tolerance(max_rel=2e-6, rel_l2=2e-6),
    }
    exact_names: ClassVar[tuple[str, ...]] = ("loss",)  # a row of one class: logsumexp x - x = 0
    scalar_args: ClassVar[dict[str, float | int]] = {"ignore_index": IGNORE_INDEX}

    def input_spec(self, name: str, shape: Shape, point: Point) -> ArraySpec:
        if name == "target":
            return ArraySpec("target", "int64", shape["rows"])
        return super().input_spec(name, shape, point)

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        x = softmax_state_inputs(shape, dtype, rng, xp)
        mask = neg_inf_mask(shape["rows"], shape["cols"], xp)
        target = finite_targets(mask, rng, xp)
        return {"x": x, "target": xp.where(ignored_rows(shape["rows"], xp), self.int_scalar("ignore_index"), target)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        v = self.exact_inputs(inputs, shape, point, xp)
        return {"loss": cross_entropy_float64(v["x"], v["target"], self.int_scalar("ignore_index"), xp)}

    def flops(self, shape: Shape, point: Point) -> int:
        # Per element: max, subtract, scale by log2 e, exponential, add (per row: one log, the
        # target's subtraction).
        return 5 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        note = "a bf16 loss widened outside the timing; held to 2^-7"
        loose = bfloat16_loosened(self.tolerance, 2.0**-7)
        return (*torch_peers("torch.nn.functional.cross_entropy(x, target, ignore_index=ignore_index, "
                             "reduction='none') in the input dtype", _cross_entropy_torch, "loss", ignore_index_arg,
                             convert=as_float32, note=note, tolerance=loose),
                liger_peer("liger_cross_entropy(x, target, ignore_index=ignore_index, reduction='none')",
                           _cross_entropy_liger, "loss", ignore_index_arg, convert=as_float32, note=note,
                           tolerance=loose),
                quack_peer("quack.cross_entropy.cross_entropy_fwd(x, target, ignore_index=ignore_index), a float32 "
                           "loss", _cross_entropy_quack, "loss", ignore_index_arg))


def ignore_index_arg(contract: Contract, shape: Shape, point: Point) -> tuple[int]:
    """The peers' argument after their input tensors: the contract's ignore_index."""
    return (contract.int_scalar("ignore_index"),)


def _cross_entropy_torch(x: Any, target: Any, ignore_index: int) -> Any:
    import torch

    return torch.nn.functional.cross_entropy(x, target, ignore_index=ignore_index, reduction="none")


def _cross_entropy_liger(x: Any, target: Any, ignore_index: int) -> Any:
    from liger_kernel.transformers.functional import liger_cross_entropy

    return liger_cross_entropy(x, target, ignore_index=ignore_index, reduction="none")


def _cross_entropy_quack(x: Any, target: Any, ignore_index: int) -> Any:
    from quack.cross_entropy import cross_entropy_fwd

    return cross_entropy_fwd(x, target, ignore_index=ignore_index)
