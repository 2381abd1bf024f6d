"""The measurement contract of a primitive: what a realization must compute, and how it is judged.

A contract is the semantics a primitive is verified and timed under, written once in Python and
shared by every realization of the primitive: input generation per shape and dtype (fresh random
data with a large dynamic range, never zeros), output roles and sizes, the float64 reference, the
minimal bytes moved and flops done (for fractions of the ceiling), tolerances per dtype, the
reference shapes for verification and timing, and the peers (PyTorch eager, torch.compile,
CuPy/CUB) that solve the same problem in the same run.

Arrays are host NumPy or device CuPy arrays: every method takes the array module ``xp`` so the
same code generates inputs and references on either side.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from epldb.contracts.dtypes import itemsize

Shape = dict[str, int]
Point = Mapping[str, Any]
Arrays = Mapping[str, Any]


@dataclass(frozen=True)
class ArraySpec:
    """One array of the problem: its name, catalog dtype and element count."""

    name: str
    dtype: str
    count: int

    @property
    def nbytes(self) -> int:
        return self.count * itemsize(self.dtype)


@dataclass(frozen=True)
class Tolerance:
    """Largest accepted error: max |out - ref| / max |ref|, and ||out - ref||_2 / ||ref||_2."""

    max_rel: float
    rel_l2: float


#: A peer prepared for one problem: takes the input arrays (CuPy, by name), returns the outputs.
PeerCall = Callable[[Arrays], dict[str, Any]]


@dataclass(frozen=True)
class Peer:
    """Another implementation of the same problem, timed in the same run (kind ``peer`` rows).

    ``prepare(contract, shape, point)`` returns the call, or a string saying why the peer cannot
    solve this instance (the row is then ``skipped`` with that detail). ``tolerance`` replaces the
    contract's only where the peer computes the same information at a documented lower precision
    (a float32 logsumexp from which (m, l) are derived); the title must say why.
    """

    name: str
    title: str
    prepare: Callable[["Contract", Shape, Point], "PeerCall | str"]
    tolerance: "dict[str, Tolerance] | None" = None


#: The most digits a shape's size may have on a command line: 10^15 elements is beyond any device.
MAX_SIZE_DIGITS = 15


def shape_sizes(text: str) -> tuple[int, ...] | None:
    """The integers of a shape written as text, '8192x32001' ('x' or '×' between them, spaces
    ignored), in the order written; None when it is not such text, or a size has more than
    ``MAX_SIZE_DIGITS`` digits (no device holds such an array, and 5000 digits were a ValueError
    from int()). Zeros pass: callers say why a size must be positive, in their own terms."""
    parts = str(text).lower().replace("×", "x").split("x")
    if not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) <= MAX_SIZE_DIGITS for p in parts):
        return None
    return tuple(int(p) for p in parts)


def uniform01(rng: Any, count: int) -> Any:
    """``count`` uniform doubles in [0, 1) from a NumPy Generator or a CuPy random state."""
    if hasattr(rng, "random_sample"):  # CuPy's (and NumPy's legacy) RandomState
        return rng.random_sample(count)
    return rng.random(count)


def wide_range_values(rng: Any, count: int, xp: Any = np, octaves: int = 8) -> Any:
    """Random float64 values of both signs with magnitudes log-uniform in [2^-octaves, 2^octaves).

    Never zero (also after rounding to bfloat16), and with a wide dynamic range, so that unwritten
    outputs, lost elements and wrong indexing all show in the error.
    """
    exponent = uniform01(rng, count) * (2 * octaves) - octaves
    magnitude = xp.exp2(exponent)
    sign = xp.where(uniform01(rng, count) < 0.5, -1.0, 1.0)
    return sign * magnitude


#: Magnitudes of the large member of a pair: log-uniform in [2^-OCTAVES, 2^OCTAVES).
OCTAVES = 8
#: The small member's ratio u to the large one: log-uniform in [2^U_LOW, 2^U_HIGH).
U_LOW, U_HIGH = -8, -1


def paired_values(rng: Any, n: int, xp: Any = np) -> Any:
    """``n`` float64 values of both signs whose sum is at least a third of their absolute sum.

    See epldb/contracts/device_reduce.py's docstring: pairs ``(s*a, -s*a*u)`` in random order, ``u`` in [2^-8, 2^-1),
    one sign ``s`` per call, an odd ``n`` ending with ``s*a``. Never zero.
    """
    pairs = (n + 1) // 2
    a = xp.exp2(uniform01(rng, pairs) * (2 * OCTAVES) - OCTAVES)
    u = xp.exp2(uniform01(rng, pairs) * (U_HIGH - U_LOW) + U_LOW)
    swap = uniform01(rng, pairs) < 0.5
    s = 1.0 if float(uniform01(rng, 1)[0]) < 0.5 else -1.0
    big, small = s * a, -s * a * u
    out = xp.empty(2 * pairs, dtype=xp.float64)
    out[0::2] = xp.where(swap, small, big)
    out[1::2] = xp.where(swap, big, small)
    if n % 2:
        out[n - 1] = big[-1]  # the unpaired last element is a large one, so the bound holds
    return out[:n]


def make_rng(xp: Any, seed: int) -> Any:
    """A random generator for ``xp``: NumPy's default Generator, or CuPy's RandomState."""
    if xp is np:
        return np.random.default_rng(seed)
    return xp.random.RandomState(seed)


class Contract(ABC):
    """Base class of contracts; subclasses fill the class variables and the abstract methods."""

    name: ClassVar[str]
    summary: ClassVar[str]
    shape_vars: ClassVar[tuple[str, ...]]
    input_names: ClassVar[tuple[str, ...]]
    output_names: ClassVar[tuple[str, ...]]
    #: Parameters every realization under this contract must declare (the harness reads them).
    required_params: ClassVar[tuple[str, ...]] = ()
    #: Scalars of the problem by name (a norm's ``{"eps": 1e-5}``, cross-entropy's
    #: ``{"ignore_index": -100}``): a launch plan passes one by naming it bare in ``args``; the
    #: kernel receives a float as a 32-bit float, an int as a 32-bit int. Part of the problem, not a
    #: parameter: every realization and peer solves it with these values (epldb.ops passes the
    #: caller's at run time).
    scalar_args: ClassVar[dict[str, float | int]] = {}
    #: Shapes every realization is verified at: sizes that are multiples of nothing, and large.
    verify_shapes: ClassVar[tuple[Shape, ...]]
    #: Timing shapes: from launch-latency-bound to far beyond L2.
    bench_shapes_full: ClassVar[tuple[Shape, ...]]
    bench_shapes_quick: ClassVar[tuple[Shape, ...]]
    #: Shapes off the bench set's line, for scoring selection where it has no rows (``bench
    #: --sweep``, then ``select --evaluate``): none unless a contract names them.
    sweep_shapes: ClassVar[tuple[Shape, ...]] = ()
    #: Tolerance per input dtype.
    tolerance: ClassVar[dict[str, Tolerance]]
    #: The bandwidth ceiling timed rows are a fraction of: "read" (read-dominated problems such
    #: as reductions) or "copy" (as many bytes written as read).
    ceiling: ClassVar[str] = "read"
    #: For compute-bound problems: the rate ceiling (GFLOP/s, epldb.bench.RATE_CEILINGS) timed rows
    #: are a fraction of, in place of the bandwidth ceiling; None for memory-bound contracts.
    rate_ceiling: ClassVar[str | None] = None

    def bench_shapes(self, quick: bool) -> tuple[Shape, ...]:
        return self.bench_shapes_quick if quick else self.bench_shapes_full

    def dtype_of(self, point: Point) -> str:
        """The input dtype of a parameter point (its ``dtype`` parameter; float32 if none)."""
        return str(point.get("dtype", "float32"))

    def scalar(self, name: str) -> float:
        """A float scalar as kernels receive it: ``scalar_args[name]`` rounded to float32. The
        reference uses this value, so the problem is the one the kernel is handed."""
        return float(np.float32(self.scalar_args[name]))

    def int_scalar(self, name: str) -> int:
        """An integer scalar (``scalar_args[name]``, a 32-bit int in the kernel)."""
        v = self.scalar_args[name]
        assert isinstance(v, int) and not isinstance(v, bool), f"{self.name}: scalar '{name}' is not an int"
        return v

    def tolerance_for(self, point: Point, peer: "Peer | None" = None) -> Tolerance:
        """The tolerance of a point's dtype; a peer's own tolerance where it declares one."""
        if peer is not None and peer.tolerance is not None:
            return peer.tolerance[self.dtype_of(point)]
        return self.tolerance[self.dtype_of(point)]

    @abstractmethod
    def inputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        """The input arrays of one instance, in the order ``epldb.run`` takes them."""

    @abstractmethod
    def outputs(self, shape: Shape, point: Point) -> list[ArraySpec]:
        """The output arrays of one instance (name, dtype, count), in order."""

    @abstractmethod
    def shape_of(self, arrays: Arrays, point: Point) -> Shape:
        """The shape variables of an instance, read off its input arrays."""

    @abstractmethod
    def make_inputs(self, shape: Shape, dtype: str, point: Point, rng: Any, xp: Any = np) -> dict[str, Any]:
        """Fresh random inputs (storage arrays by name) for one instance; never zeros."""

    @abstractmethod
    def reference(self, inputs: Arrays, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        """The float64 outputs by name, computed from the inputs' exact values."""

    @abstractmethod
    def bytes_moved(self, shape: Shape, point: Point) -> int:
        """The fewest bytes any implementation must move through device memory."""

    @abstractmethod
    def flops(self, shape: Shape, point: Point) -> int:
        """The arithmetic operations of the problem (one per binary op)."""

    def peer_params(self, point: Point) -> dict[str, Any]:
        """The part of a point that defines the problem peers solve (rows of one peer per value)."""
        return dict(point)

    def peers(self) -> tuple[Peer, ...]:
        return ()

    def exact_outputs(self, shape: Shape, point: Point, xp: Any = np) -> dict[str, Any]:
        """Where the mathematics is exact (a constant row's layernorm is its bias, a one-element row's
        softmax is 1): per output name, a boolean mask over its elements (flat, in output order)
        that must equal the float64 reference rounded to the output dtype, bit for bit. verify
        reports every other value there as an inexact element; the tolerance judges the rest.
        Default: no output is required exact."""
        return {}
