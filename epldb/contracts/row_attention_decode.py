"""Contract ``row-attention-decode``: the attention row of single-query decoding, given its scores.

The contract of streaming-weighted-reduction and split-state-merge (the weighted-accumulate and
split-merge stages of catalog/operators/attention-row-statistics.yaml), with the scores already
formed: ``s`` is ``rows x cols`` scores of ``dtype`` (float32 or bfloat16), row-major and
contiguous; ``v`` is ``rows x cols x dim`` values of the same dtype, row-major and contiguous: each
row (a (batch, head) pair) has its own ``cols`` keys, each with a ``dim``-vector (the head
dimension; 128 at every shape here). Per row, with m = max_j s[r, j] and
l = sum_j exp(s[r, j] - m) (the row's softmax state, row-softmax-state):

    o[r, :] = sum_j softmax(s[r, :])_j * v[r, j, :] = (1 / l) sum_j exp(s[r, j] - m) * v[r, j, :]
    lse[r]  = m + log l

``o`` is ``rows x dim`` float32 and ``lse`` ``rows`` float32, for both input dtypes. The reference
is float64 over the inputs' exact values.

Convention for -inf: scores may be -inf (masked keys), which contribute exactly 0 to o, l and lse
(their values are read but weigh nothing). A row whose scores are ALL -inf has m = -inf and l = 0:
this contract defines o = 0 (zeros, finite; 1/l taken as 0) and lse = -inf (as torch.logsumexp).
Inputs never hold +inf or NaN.

Inputs: ``s`` is row-softmax-state's ``x`` (epldb/contracts/row_softmax_state.py, the same function
and draws): per row, values of magnitude 1/64..4 of random sign, every 4th row (r % 4 == 1)
offset by 5000..10000 (exp(s) overflows float32 by far; s - m must be formed before the
exponential, and in bfloat16 those rows are a few ties at multiples of 32 or 64), -inf at fixed
places in rows r % 5 in (2, 3) (a third of the keys kept, or the second half), and row rows // 2
all -inf when rows > 2. ``v`` is uniform in [-1, 1), drawn after s from the same generator, so o
is a weighted mean of values of both signs: |o| is about 1 / sqrt(cols) in long rows (the largest
of a row's 128 about 3 / sqrt(cols)), up to 1 in one-key rows, never all zero.

Minimal traffic: read s (``rows * cols * sizeof(T)``) and v (``rows * cols * dim * sizeof(T)``)
once, write o and lse (``4 * rows * (dim + 1)``): v is almost all of it, a read stream, so the
figure of merit is GB/s against the READ ceiling. The bench shapes hold v at 2^27 elements each
(512 MiB in float32, 256 MiB in bfloat16: far beyond L2), from 1024 rows of 1024 keys to 8 rows
of 131072 keys (too few rows for the H200's SMs: the key axis must be split, which is what
split-state-merge is for).

Operations (``flops``): 2 per value element (the multiply by p_j and the add into acc, one FFMA)
and 5 per score (max, subtract, scale by log2 e, exponential, add into l), so rows * cols *
(2 * dim + 5), 2.04 per value element at dim 128. The rescaling of acc by exp(m_old - m_new) is
left out: it is the online form's cost, once per chunk and not per key, and a two-pass form has
none; the final division is per row. About 0.5 operations per float32 byte: memory-bound.

Kernel arguments: ``(s, v, o, lse, rows, cols)`` for a one-launch realization (one taking its
row from the grid may leave ``rows`` out; a realization of several launches passes scratch
between them). ``dim`` is fixed at 128 in the kernels (a compile-time constant, every launch
plan's domain); it is still a shape variable, so that arrays, bytes and domains are right.

Tolerance (max_rel and rel_l2 over each output, o and lse alike; both dtypes: the outputs are
float32 either way and bfloat16 inputs are exact in float32). A float32 kernel's errors: every
exponential off by a few ulp (__expf: ex2.approx, about 2 ulp, of the rounded (s - shift) * log2 e,
6e-8 * |s - shift| <= 5e-7 relative), l and acc float32 sums along each warp's chain of keys (l's
partial sums grow to about cols / 8 per chain, so each add rounds away up to half an ulp of a
large sum: a random walk of relative size about u * sqrt(chain)), one rounding per rescale and per
merge, and o = acc * (1 / l) (two). The normwise scale is the largest |o| of the shape, about
3 / sqrt(cols) in long rows, up to 1 in one-key rows. Replayed in float32 in the order of
epl/body/attention.cuh (tests/contracts/test_row_attention_decode.py with
float32_replays.attention_decode, exponentials given +-2 ulp of noise): online-block (4 or 8
warps on interleaved keys, 4 or 8 keys a round, warps merged in warp order) at most 3.8e-6 (the
65537-key rows, bfloat16), split-kv (4 to 64 splits) 2.4e-6, materialize-weights 3.2e-6; a single
chain over every key of a row (one warp, one key a round: the worst order a kernel could take)
1.8e-5; lse at most 7e-8 in all of them (m is exact, log l's error is absolute and small against
|lse|). 5e-5 keeps a margin of 13 over the realizations' orders and of 2.7 over the single chain
(1.9e-5 at most over six seeds).

What that normwise figure catches: a lost key of median weight moves its row's o by about
p_j / l ~ 1 / cols of a value against a scale of 3 / sqrt(cols): replayed 1.6e-4 to 3e-4 at
65537 keys (3 to 6 times the tolerance), 4e-4 and more at 4097 keys and below; a key of the row's largest weight
by 1e-2 or more at every shape; a lost 16-byte piece of a median key's values (4 of its 128 in
float32, 8 in bfloat16) by 1.1e-4 to 2.3e-4 at 20011 keys, about the tolerance at 65537 (a tail
key lost in every row is caught through the rows whose lost key weighs most). Wrong rows (another
row's o or lse), a lost split (a key range missing: o is then another weighted mean), an
unwritten output (NaN), a NaN o or a finite lse in the all -inf row: at every shape. The form that
stores split partials normalized, (o_i, lse_i) with o = sum_i o_i exp(lse_i - lse) (FlashInfer's
merge_state), FAILS on purpose: rounding lse_i near 1e4 (the offset rows) to float32 loses half an
ulp of 1e4, 2.4e-4 of relative weight, and its o is off by 1e-4 to 5e-4 at most shapes with an
offset row (replayed with 16 splits; as little as 4.5e-5 at 5 x 20011 in bfloat16): the kernels
must merge the unnormalized (m_i, l_i, acc_i), as split-kv does. What it cannot see:
a lost key of weight e^-8 in long rows (a change of about 1e-7); lse errors smaller than 5e-5 of the
largest |lse|, which is about 1e4 wherever an offset row is finite (every shape of two rows or more
except (3, 31), whose row 1 is the all -inf row): lse is checked closely only at (1, 1) and
(3, 31), and elsewhere l only through o = acc / l, which shows a relative error of l in proportion
to its row's |o|.

Peers: PyTorch eager and torch.compile (static shapes) of ``p = torch.softmax(s.float(), dim=1);
o = torch.bmm(p.unsqueeze(1), v.float()).squeeze(1); lse = torch.logsumexp(s.float(), dim=1)``,
returning (o, lse), both float32: what a user wanting a float32 result from bfloat16 inputs
writes. For bfloat16, ``v.float()`` materializes a float32 copy of v (twice v's bytes written
and read again: the peer's cost, timed) and the softmax probabilities are written out (small
beside v). torch.softmax returns NaN for an all -inf row and bmm carries it into o: the NaNs of
the peers' outputs are read as 0 when the checker reads them, outside the timing (this
contract's convention; peers.nan_as); lse is -inf there already (a NaN in lse would be read as 0:
still a failure where -inf is due, and wherever lse is not near 0). The peers are held to the contract's tolerance (float32 throughout).
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
from epldb.contracts.peers import nan_as, torch_peers
from epldb.contracts.row_logsumexp import logsumexp_float64
from epldb.contracts.row_softmax_state import (
    softmax_state_float64,
    softmax_state_inputs,
)

#: The head dimension of every shape of this contract (the kernels' compile-time constant).
DIM = 128


def _shape(rows: int, cols: int) -> Shape:
    return {"rows": rows, "cols": cols, "dim": DIM}


def attention_decode_float64(s: Any, v: Any, xp: Any = np) -> tuple[Any, Any]:
    """(o, lse) of float64 scores [rows, cols] and values [rows, cols, dim]; an all -inf row
    gives o = 0 and lse = -inf."""
    m, l = softmax_state_float64(s, xp)
    shift = xp.where(m == -xp.inf, 0.0, m)
    p = xp.exp(s - shift[:, None])  # exactly 0 at -inf scores
    inv_l = xp.where(l > 0, 1.0 / xp.where(l > 0, l, 1.0), 0.0)
    o = xp.matmul(p[:, None, :], v)[:, 0, :] * inv_l[:, None]
    return o, logsumexp_float64(s, xp)


def uniform_values(count: int, dtype: str, rng: Any, xp: Any = np) -> Any:
    """``count`` values uniform in [-1, 1), rounded to ``dtype`` (storage array, flat)."""
    return from_float64(2.0 * uniform01(rng, count) - 1.0, dtype, xp)


class RowAttentionDecode(Contract):
    name: ClassVar[str] = "row-attention-decode"
    summary: ClassVar[str] = (
        "Per row: scores s [cols] and values v [cols, dim] in; o = softmax(s) @ v [dim] and "
        "lse = m + log l, float32 (all -inf row: o = 0, lse = -inf)."
    )
    shape_vars: ClassVar[tuple[str, ...]] = ("rows", "cols", "dim")
    input_names: ClassVar[tuple[str, ...]] = ("s", "v")
    output_names: ClassVar[tuple[str, ...]] = ("o", "lse")
    verify_shapes: ClassVar[tuple[Shape, ...]] = (
        _shape(1, 1),
        _shape(3, 31),
        _shape(7, 4097),
        _shape(2, 65_537),  # two rows of many keys: a split key axis, and a long chain per worker
        _shape(33, 8),  # fewer keys than one round of a block of warps: most keys are padding
        _shape(129, 1032),  # aligned rows, ragged against chunk and split sizes
        _shape(5, 20_011),  # a prime key count, the all -inf row at 2
    )
    #: v at 2^27 elements each (512 MiB float32, 256 MiB bfloat16), from many rows of short
    #: key ranges to fewer rows than the H200 has SMs.
    bench_shapes_full: ClassVar[tuple[Shape, ...]] = (
        _shape(1024, 1024),
        _shape(256, 4096),
        _shape(64, 16_384),
        _shape(8, 131_072),
    )
    bench_shapes_quick: ClassVar[tuple[Shape, ...]] = (
        _shape(1024, 1024),
        _shape(8, 131_072),
    )
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=5e-5, rel_l2=5e-5),
        "bfloat16": Tolerance(max_rel=5e-5, rel_l2=5e-5),
    }

    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        dtype, keys = self.dtype_of(point), shape["rows"] * shape["cols"]
        return [ArraySpec("s", dtype, keys), ArraySpec("v", dtype, keys * shape["dim"])]

    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        return [ArraySpec("o", "float32", shape["rows"] * shape["dim"]), ArraySpec("lse", "float32", shape["rows"])]

    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        """rows and cols from ``s`` (a 1-D s is one row), dim from ``v``'s last axis (a flat v:
        its size over rows * cols)."""
        s, v = arrays["s"], arrays["v"]
        rows, cols = (int(s.shape[0]), int(s.shape[1])) if getattr(s, "ndim", 1) == 2 else (1, int(s.size))
        dim = int(v.shape[-1]) if getattr(v, "ndim", 1) == 3 else int(v.size) // max(1, rows * cols)
        return {"rows": rows, "cols": cols, "dim": dim}

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        rows, cols, dim = shape["rows"], shape["cols"], shape["dim"]
        s = softmax_state_inputs({"rows": rows, "cols": cols}, dtype, rng, xp)
        v = uniform_values(rows * cols * dim, dtype, rng, xp).reshape(rows, cols, dim)
        return {"s": s, "v": v}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        rows, cols, dim = shape["rows"], shape["cols"], shape["dim"]
        dtype = self.dtype_of(point)
        s = to_float64(inputs["s"], dtype, xp).reshape(rows, cols)
        v = to_float64(inputs["v"], dtype, xp).reshape(rows, cols, dim)
        o, lse = attention_decode_float64(s, v, xp)
        return {"o": o, "lse": lse}

    def bytes_moved(self, shape: Shape, point: Point) -> int:
        """s and v read once, o and lse written once."""
        return sum(a.nbytes for a in (*self.inputs(shape, point), *self.outputs(shape, point)))

    def flops(self, shape: Shape, point: Point) -> int:
        # Per value element: multiply by p and add into acc (one FFMA). Per score: max, subtract,
        # scale by log2 e, exponential, add into l. Rescales and the final division left out.
        return shape["rows"] * shape["cols"] * (2 * shape["dim"] + 5)

    def peer_params(self, point: Point) -> dict[str, Any]:
        """Peers solve the same problem whatever the realization's parameters: only the dtype."""
        return {"dtype": self.dtype_of(point)}

    def peers(self) -> tuple[Peer, ...]:
        return torch_peers("p = torch.softmax(s.float(), dim=1); o = torch.bmm(p.unsqueeze(1), v.float()).squeeze(1); "
                           "lse = torch.logsumexp(s.float(), dim=1)", _attention_decode_torch, ("o", "lse"),
                           convert=nan_as(0.0),
                           note="bf16: v.float() materializes a float32 copy of v, timed; NaN of an all -inf row "
                                "read as 0 outside the timing")


def _attention_decode_torch(s: Any, v: Any) -> tuple[Any, Any]:
    import torch

    s32 = s.float()  # no copy for float32
    p = torch.softmax(s32, dim=1)
    o = torch.bmm(p.unsqueeze(1), v.float()).squeeze(1)
    return o, torch.logsumexp(s32, dim=1)
