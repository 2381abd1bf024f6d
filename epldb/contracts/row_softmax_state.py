"""Contract ``row-softmax-state``: the softmax normalizer state (m, l) of every row of a matrix.

The contract of online-max-accumulation (kernels/include/epl/thread/softmax_state.cuh,
kernels/include/epl/body/softmax_state.cuh): ``x`` is ``rows x cols`` elements of ``dtype``
(float32 or bfloat16), row-major and contiguous; per row, ``m[r] = max_j x[r, j]`` and
``l[r] = sum_j exp(x[r, j] - m[r])``, both float32. From them logsumexp = m + log l and
softmax = exp(x - m) / l. The reference is float64 over the inputs' exact values.

Convention for -inf: elements may be -inf (masked entries). A row with some -inf entries has the
max and sum of its finite ones (exp(-inf) = 0). A row whose entries are ALL -inf has m = -inf and
l = 0 (the state of the empty set, the merge identity; logsumexp = -inf + log 0 = -inf, as
torch.logsumexp returns). Inputs never hold +inf or NaN.

Inputs: per row, values c_r + u with u of magnitude in [1/64, 4 + 1/64) and random sign (never
zero), so exp(x - m) spans e^-8..1 and l sums many comparable terms (about cols / 8); every 4th
row (r % 4 == 1) has an offset c_r of magnitude 5000..10000 (random sign), where exp(x) would
overflow float32 by far and x - m must be formed exactly: in bfloat16 those rows hold multiples of
32 or 64, so their l counts the ties of the max. Rows r % 5 == 2 hold -inf at columns j % 3 != 1
(first and last columns included), rows r % 5 == 3 at the first half of the columns (whole
threads and warps start with only -inf), as long as the row keeps a finite entry; when rows > 2,
row rows // 2 is all -inf. Deterministic in where the -inf sit, random in the values.

Minimal traffic: read ``rows * cols * sizeof(T)`` bytes once, write ``8 * rows`` bytes. About
5 operations per element (max, subtract, scale, exponential, add): memory-bound, so the figure of
merit is GB/s against the read ceiling (H200: about 4540 GB/s; 59 us for a 64 Mi-element float32
shape, 30 us in bfloat16). A two-pass realization reads the row twice but is still charged the
minimal bytes: its GB/s shows what the second read costs.

Tolerance (max_rel and rel_l2 over each output vector, m and l alike): m is a max, exact in any
order; l is a float32 sum of terms in (0, 1] whose exponentials are MUFU.EX2-based (__expf, about
2 ulp, plus the rounding of (x - m) * log2 e: relative 6e-8 * |x - m|). The worst order the
realizations use (4 lanes per row, each a sequential chain over every 4th element, element-wise
online updates) stays below 2e-6 on the 100003-element rows (tests/contracts/
test_row_softmax_state.py replays it); 2e-5 leaves a margin of 10 and still fails a lost 16-byte
vector in rows of up to a few thousand elements.

Peers: torch.logsumexp (eager and torch.compile; bfloat16 upcast by ``x.float()`` first, as a user
wanting float32 accuracy calls it). Only ``torch.logsumexp`` is timed; the (m, l) the checker
compares are derived from its result when the checker reads them, outside the timing
(m = x.amax(dim=1), l = exp(lse - m) in float64, l = 0 where m = -inf). That derivation is
information the peer does not carry: a float32 lse holds m + log l to |lse| * 2^-24, so on the
rows at offsets of 1e4 its l is off by up to about 6e-4 and the peer rows show an error above this
contract's tolerance. Their times are still those of the call a user would make.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from epldb.contracts.base import (
    Arrays,
    Contract,
    Peer,
    PeerCall,
    Point,
    Shape,
    Tolerance,
    uniform01,
)
from epldb.contracts.dtypes import from_float64
from epldb.contracts.rows import RowContract

#: Magnitudes of the in-row values: [SPREAD_MIN, SPREAD_MIN + SPREAD).
SPREAD_MIN = 2.0**-6
SPREAD = 4.0
#: Offsets of the large-magnitude rows: [OFFSET_MIN, OFFSET_MAX).
OFFSET_MIN = 5000.0
OFFSET_MAX = 10000.0


def large_rows(rows: int, xp: Any = np) -> Any:
    """Rows with offsets of magnitude 5000..10000."""
    return xp.arange(rows) % 4 == 1


def neg_inf_mask(rows: int, cols: int, xp: Any = np, masked_row: bool = True) -> Any:
    """Where the inputs hold -inf (see the module docstring); a [rows, cols] boolean array.
    ``masked_row=False`` leaves out the all -inf row (for problems that need a finite entry in
    every row, as cross-entropy's target)."""
    r = xp.arange(rows)[:, None]
    j = xp.arange(cols)[None, :]
    some = ((r % 5 == 2) & (j % 3 != 1)) | ((r % 5 == 3) & (j < cols // 2))
    if cols < 2:
        some = some & False  # a one-element row keeps its finite entry
    if rows > 2 and masked_row:
        some = some | ((r == rows // 2) & (j >= 0))
    return some


def softmax_state_inputs(shape: Shape, dtype: str, rng: Any, xp: Any = np, masked_row: bool = True) -> Any:
    """The contract's ``x`` (see the module docstring): a [rows, cols] storage array of ``dtype``.
    Shared by the contracts built on (m, l): row-softmax, row-log-softmax, row-logsumexp,
    row-cross-entropy (without the all -inf row)."""
    rows, cols = shape["rows"], shape["cols"]
    magnitude = SPREAD_MIN + SPREAD * uniform01(rng, rows * cols)
    sign = xp.where(uniform01(rng, rows * cols) < 0.5, -1.0, 1.0)
    u = (sign * magnitude).reshape(rows, cols)
    offset_mag = OFFSET_MIN + (OFFSET_MAX - OFFSET_MIN) * uniform01(rng, rows)
    offset_sign = xp.where(uniform01(rng, rows) < 0.5, -1.0, 1.0)
    offset = xp.where(large_rows(rows, xp), offset_sign * offset_mag, 0.0)
    values = u + offset[:, None]
    values = xp.where(neg_inf_mask(rows, cols, xp, masked_row), -xp.inf, values)
    return from_float64(values, dtype, xp).reshape(rows, cols)


def softmax_state_float64(x: Any, xp: Any = np) -> tuple[Any, Any]:
    """(m, l) of every row of a float64 [rows, cols] array; all -inf rows give (-inf, 0)."""
    m = x.max(axis=1)
    shift = xp.where(m == -xp.inf, 0.0, m)
    l = xp.exp(x - shift[:, None]).sum(axis=1)
    return m, l


class RowSoftmaxState(RowContract):
    name: ClassVar[str] = "row-softmax-state"
    summary: ClassVar[str] = (
        "Per row of a row-major [rows, cols] matrix: m = max and l = sum exp(x - m), float32 "
        "(all -inf row: m = -inf, l = 0)."
    )
    output_names: ClassVar[tuple[str, ...]] = ("m", "l")
    tolerance: ClassVar[dict[str, Tolerance]] = {
        "float32": Tolerance(max_rel=2e-5, rel_l2=2e-5),
        "bfloat16": Tolerance(max_rel=2e-5, rel_l2=2e-5),
    }

    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        return {"x": softmax_state_inputs(shape, dtype, rng, xp)}

    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        x = self.exact_inputs(inputs, shape, point, xp)["x"]
        m, l = softmax_state_float64(x, xp)
        return {"m": m, "l": l}

    def flops(self, shape: Shape, point: Point) -> int:
        # Per element: max, subtract, scale by log2 e, exponential, add.
        return 5 * shape["rows"] * shape["cols"]

    def peers(self) -> tuple[Peer, ...]:
        return (
            Peer("torch-eager",
                 "PyTorch eager: torch.logsumexp(x, dim=1) (bf16: x.float() first) timed; (m, l) derived "
                 "outside the timing, l limited to |lse| * 2^-24 relative", _torch_eager, _LSE_TOLERANCE),
            Peer("torch-compile",
                 "torch.compile of the same call, static shapes; (m, l) derived outside the timing",
                 _torch_compile, _LSE_TOLERANCE),
        )


# --- peers -----------------------------------------------------------------------------------------


# A float32 logsumexp holds lse = m + log l to half an ulp of |lse|: 2^-10 / 2 absolute at the
# contract's |x| up to 1e4, so l = exp(lse - m) is off by up to ~5e-4 relative. Twice that bound;
# m is derived exactly (amax), so only l uses the slack.
_LSE_TOLERANCE = {dtype: Tolerance(max_rel=1e-3, rel_l2=1e-3) for dtype in ("float32", "bfloat16")}


def _logsumexp_torch(x: Any) -> Any:
    import torch

    return torch.logsumexp(x if x.dtype == torch.float32 else x.float(), dim=1)


class StateFromLogsumexp(Mapping[str, Any]):
    """The outputs of a logsumexp peer: holds lse (and x); m and l are computed when read.

    The bench times the peer's call, which returns this object without touching m or l; the
    checker reads them afterwards: m = amax(x) (exact), l = exp(lse - m) in float64, rounded to
    float32; l = 0 where m = -inf.
    """

    def __init__(self, x: Any, lse: Any) -> None:
        self._x = x
        self._lse = lse
        self._cache: dict[str, Any] = {}

    def _derive(self) -> None:
        import cupy
        import torch

        m = torch.amax(self._x, dim=1).double()
        shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        l = torch.where(torch.isneginf(m), torch.zeros_like(m), torch.exp(self._lse.double() - shift))
        self._cache = {"m": cupy.from_dlpack(m.float()), "l": cupy.from_dlpack(l.float())}

    def __getitem__(self, key: str) -> Any:
        if key not in ("m", "l"):
            raise KeyError(key)
        if not self._cache:
            self._derive()
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        return iter(("m", "l"))

    def __len__(self) -> int:
        return 2


_COMPILED: dict[tuple[str, int, int], Any] = {}
#: Graphs a bench compiles: 6 shapes x 2 dtypes, above dynamo's default recompile limit (8).
_RECOMPILE_LIMIT = 64


def _prepare(compiled: bool, contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
    try:
        import torch
    except ImportError as e:
        return f"not installed: {e.name}"
    try:
        import cupy  # noqa: F401
    except ImportError as e:
        return f"not installed: {e.name}"
    from epldb.contracts.peers import as_torch, raise_recompile_limit

    dtype = contract.dtype_of(point)
    fn: Any = _logsumexp_torch
    if compiled:
        raise_recompile_limit(_RECOMPILE_LIMIT)
        key = (dtype, shape["rows"], shape["cols"])
        if key not in _COMPILED:
            _COMPILED[key] = torch.compile(_logsumexp_torch, dynamic=False)
        fn = _COMPILED[key]

    def call(inputs: Arrays) -> dict[str, Any]:
        x = as_torch(inputs["x"], dtype)
        return StateFromLogsumexp(x, fn(x))  # type: ignore[return-value]  # a lazy Mapping

    return call


def _torch_eager(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
    return _prepare(False, contract, shape, point)


def _torch_compile(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
    return _prepare(True, contract, shape, point)
