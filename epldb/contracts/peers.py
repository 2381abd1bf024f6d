"""Peers: PyTorch eager, torch.compile, Liger-Kernel, QuACK and CuPy solving a contract's problem
beside our kernels.

What every peer shares lives here: the lazy imports (a missing package is a skip reason, never an
exception), CuPy arrays handed to PyTorch and back through DLPack (bfloat16 through an int16
view), the cache of compiled functions, CuPy's lack of bfloat16 arithmetic, and outputs that the
checker reads differently from how the peer returns them (NaN where the contract has a convention,
bfloat16 where the contract has float32), converted when read, outside the timing. A contract
gives only what differs: the function that computes its output from the input arrays (all of
the contract's inputs, in order), the arguments that function takes after them (read off the
point once, when the peer is prepared), the output's name and the peer's title.

The peer names are part of the evidence: rows are ``<contract>/<peer name>`` and the site groups by
them, so they are fixed here and never change.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from epldb.contracts.base import (
    Arrays,
    Contract,
    Peer,
    PeerCall,
    Point,
    Shape,
    Tolerance,
)
from epldb.contracts.dtypes import from_float64, to_float64

TORCH_EAGER = "torch-eager"
TORCH_COMPILE = "torch-compile"
CUPY = "cupy"
LIGER = "liger-kernel"
QUACK = "quack"

#: The arguments a peer function takes after its input arrays, for one instance.
PeerArgs = Callable[[Contract, Shape, Point], tuple[Any, ...]]
#: Prepares a peer for one instance: the call, or why the peer cannot solve it.
Prepare = Callable[[Contract, Shape, Point], "PeerCall | str"]
#: The output name of a peer function returning one tensor, or the names of a tuple it returns.
Outputs = str | tuple[str, ...]

#: Inductor options of the GEMM peer: max-autotune (each shape's Triton templates compiled and timed,
#: the fastest kept) over Triton alone, cuBLAS being the eager peer already, and no CUDA graphs, which
#: would replay into one output buffer the timing's rotating input sets share.
MAX_AUTOTUNE_TRITON: tuple[tuple[str, Any], ...] = (
    ("max_autotune", True), ("max_autotune_gemm_backends", "TRITON"), ("triton.cudagraphs", False))

#: torch.compile wrappers by (function, dynamic, inductor options); filled when a peer is prepared,
#: never at import.
_COMPILED: dict[tuple[Callable[..., Any], bool, tuple[tuple[str, Any], ...]], Any] = {}


def as_torch(x: Any, dtype: str) -> Any:
    """The CuPy array ``x`` (catalog dtype ``dtype``) as a torch tensor on the same memory.

    bfloat16 is stored as uint16, which DLPack hands over as torch.uint16 (few kernels): it goes
    through an int16 view and is viewed as torch.bfloat16.
    """
    import torch

    if dtype == "bfloat16":
        return torch.from_dlpack(x.view("int16")).view(torch.bfloat16)
    return torch.from_dlpack(x)


def from_torch(t: Any) -> Any:
    """The torch tensor ``t`` as a CuPy array in catalog storage (bfloat16 as uint16 bits), on
    the same memory: DLPack takes no bfloat16 to CuPy, so it goes through an int16 view."""
    import cupy
    import torch

    if t.dtype == torch.bfloat16:
        return cupy.from_dlpack(t.view(torch.int16)).view(cupy.uint16)
    return cupy.from_dlpack(t)


def _input_specs(contract: Contract, shape: Shape, point: Point) -> list[tuple[str, str]]:
    """(name, catalog dtype) of each input of the instance, in the contract's order."""
    return [(s.name, s.dtype) for s in contract.inputs(shape, point)]


def _compiled(fn: Callable[..., Any], dynamic: bool, options: tuple[tuple[str, Any], ...] = ()) -> Any:
    """One torch.compile wrapper per function (and inductor options): dynamo keys its graphs on the
    function's code and guards on the arguments (dtype, op, and shapes unless ``dynamic``)."""
    import torch

    key = (fn, dynamic, options)
    if key not in _COMPILED:
        _COMPILED[key] = torch.compile(fn, dynamic=dynamic, options=dict(options) if options else None)
    return _COMPILED[key]


def raise_recompile_limit(limit: int) -> None:
    """Let dynamo keep at least ``limit`` graphs per function before it falls back to eager
    (silently, at its default of 8). Called when a peer is prepared, never at import."""
    import torch

    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):  # the newer name, and the older one
        if hasattr(config, name):
            setattr(config, name, max(getattr(config, name), limit))


def _named(output: Outputs, result: Any) -> dict[str, Any]:
    """A torch peer's result by output name, as CuPy arrays: one tensor named ``output``, or a
    tuple of tensors named by the tuple ``output``, in order."""
    if isinstance(output, str):
        return {output: from_torch(result)}
    return {name: from_torch(t) for name, t in zip(output, result, strict=True)}


def prepare_torch_eager(fn: Callable[..., Any], output: Outputs, args: PeerArgs) -> Prepare:
    """A peer running ``fn(*tensors, *args)`` eagerly, one tensor per contract input in order;
    its result (a tensor, or a tuple of tensors for a tuple of output names) is the output."""

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            import cupy  # noqa: F401
            import torch  # noqa: F401
        except ImportError as e:
            return f"not installed: {e.name}"
        specs, a = _input_specs(contract, shape, point), args(contract, shape, point)

        def call(inputs: Arrays) -> dict[str, Any]:
            return _named(output, fn(*(as_torch(inputs[n], d) for n, d in specs), *a))

        return call

    return prepare


def prepare_torch_compile(fn: Callable[..., Any], output: Outputs, args: PeerArgs, *, dynamic: bool,
                          recompile_limit: int | None = None,
                          options: tuple[tuple[str, Any], ...] = ()) -> Prepare:
    """A peer running ``torch.compile(fn, dynamic=dynamic, options=options)(*tensors, *args)``.

    ``dynamic=True``: one graph for every size (and every integer argument), so a run does not
    recompile per shape; ``dynamic=False``: a graph per shape, specialized to it, which needs
    ``recompile_limit`` above the number of shapes x dtypes x ops a run compiles. ``options``:
    inductor's (e.g. MAX_AUTOTUNE_TRITON), as (name, value) pairs; none: its defaults.
    """

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            import cupy  # noqa: F401
            import torch  # noqa: F401
        except ImportError as e:
            return f"not installed: {e.name}"
        if recompile_limit is not None:
            raise_recompile_limit(recompile_limit)
        specs, a = _input_specs(contract, shape, point), args(contract, shape, point)
        compiled = _compiled(fn, dynamic, options)

        def call(inputs: Arrays) -> dict[str, Any]:
            return _named(output, compiled(*(as_torch(inputs[n], d) for n, d in specs), *a))

        return call

    return prepare


def prepare_cupy(fn: Callable[..., Any], output: str, args: PeerArgs) -> Prepare:
    """A peer running ``fn(*arrays, *args)`` on the CuPy inputs in order; its result (a CuPy
    array) is the output. Skips bfloat16: CuPy stores it as uint16 and has no arithmetic for it."""

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            import cupy  # noqa: F401
        except ImportError as e:
            return f"not installed: {e.name}"
        if contract.dtype_of(point) == "bfloat16":
            return "CuPy has no bfloat16 arithmetic"
        names, a = contract.input_names, args(contract, shape, point)

        def call(inputs: Arrays) -> dict[str, Any]:
            return {output: fn(*(inputs[n] for n in names), *a)}

        return call

    return prepare


def torch_eager_peer(title: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs) -> Peer:
    return Peer(TORCH_EAGER, title, prepare_torch_eager(fn, output, args))


def torch_compile_peer(title: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs, *, dynamic: bool,
                       recompile_limit: int | None = None, options: tuple[tuple[str, Any], ...] = ()) -> Peer:
    return Peer(TORCH_COMPILE, title, prepare_torch_compile(fn, output, args, dynamic=dynamic,
                                                            recompile_limit=recompile_limit, options=options))


def cupy_peer(title: str, fn: Callable[..., Any], output: str, args: PeerArgs) -> Peer:
    return Peer(CUPY, title, prepare_cupy(fn, output, args))


def bfloat16_loosened(tolerance: Mapping[str, Tolerance], bound: float) -> dict[str, Tolerance]:
    """A peer's own tolerance (``Peer.tolerance``): the contract's, with ``bound`` (max_rel and
    rel_l2) for bfloat16 inputs, where the peer rounds what the contract keeps in float32 (a
    bfloat16 logsumexp, a weight applied after rounding); the peer's title says why."""
    return {**tolerance, "bfloat16": Tolerance(max_rel=bound, rel_l2=bound)}


def no_args(contract: Contract, shape: Shape, point: Point) -> tuple[Any, ...]:
    """For peer functions that take nothing after their inputs."""
    return ()


# --- outputs converted when the checker reads them ----------------------------------------------

#: Turns one output array of a peer (storage array, as its call returned it) into what the checker
#: compares with the contract's output. Runs outside the timing.
Convert = Callable[[Any], Any]


class ConvertedOnRead(Mapping[str, Any]):
    """A peer's outputs, each converted when first read: the bench times the call, which returns
    this object untouched; the checker reads it afterwards."""

    def __init__(self, outputs: Mapping[str, Any], convert: Convert) -> None:
        self._outputs = outputs
        self._convert = convert
        self._cache: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._cache:
            self._cache[key] = self._convert(self._outputs[key])
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._outputs)

    def __len__(self) -> int:
        return len(self._outputs)


def convert_on_read(prepare: Prepare, convert: Convert) -> Prepare:
    """``prepare`` whose call's outputs go through ``convert`` when the checker reads them."""

    def wrapped(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        call = prepare(contract, shape, point)
        if isinstance(call, str):
            return call

        def converted(inputs: Arrays) -> dict[str, Any]:
            return ConvertedOnRead(call(inputs), convert)  # type: ignore[return-value]  # a lazy Mapping

        return converted

    return wrapped


def nan_as(value: float) -> Convert:
    """NaN read as ``value`` (in the output's own dtype): for a peer whose answer on a fully masked
    row is NaN where the contract defines one (softmax's 0, log-softmax's -inf)."""

    def convert(a: Any) -> Any:
        import cupy

        if a.dtype == np.uint16:  # bfloat16 bits: NaN is an all-ones exponent with a mantissa
            bits = from_float64(np.array([value]), "bfloat16")[0]
            return cupy.where((a & 0x7FFF) > 0x7F80, cupy.uint16(bits), a)
        return cupy.where(cupy.isnan(a), a.dtype.type(value), a)

    return convert


def as_float32(a: Any) -> Any:
    """A peer output as float32: bfloat16 bits widened exactly, float32 as it is. For a peer that
    returns its input dtype where the contract's output is float32 (torch.logsumexp,
    cross_entropy on bfloat16); its own tolerance accounts for the bfloat16 rounding."""
    import cupy

    if a.dtype == np.uint16:
        return to_float64(a, "bfloat16", cupy).astype(cupy.float32)
    return a


# --- the usual pair: PyTorch eager and torch.compile of one call -----------------------------------

#: Graphs a bench compiles of one peer function with static shapes (6 shapes x 2 dtypes), above
#: dynamo's default recompile limit (8) after which it would silently fall back to eager.
STATIC_RECOMPILE_LIMIT = 64


def torch_peers(call: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs = no_args, *,
                convert: Convert | None = None, note: str = "",
                tolerance: dict[str, Tolerance] | None = None) -> tuple[Peer, Peer]:
    """PyTorch eager and torch.compile (static shapes) of ``fn(*tensors, *args)``, which ``call``
    names in the titles; ``output`` names its result (a tuple of names for a tuple of tensors).
    ``convert`` is applied to every output when the checker reads them and
    ``note`` says what it does (or why ``tolerance``, the peers' own, is looser)."""
    eager = prepare_torch_eager(fn, output, args)
    compiled = prepare_torch_compile(fn, output, args, dynamic=False, recompile_limit=STATIC_RECOMPILE_LIMIT)
    if convert is not None:
        eager, compiled = convert_on_read(eager, convert), convert_on_read(compiled, convert)
    suffix = f" ({note})" if note else ""
    return (Peer(TORCH_EAGER, f"PyTorch eager: {call}{suffix}", eager, tolerance),
            Peer(TORCH_COMPILE, f"torch.compile of the same call, static shapes{suffix}", compiled, tolerance))


# --- Liger-Kernel and QuACK: the fused kernels users pick for these layers ---------------------------


def prepare_package(module: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs) -> Prepare:
    """A peer of a package's own kernels: ``fn(*tensors, *args)`` eagerly, as prepare_torch_eager,
    once ``module`` imports (their kernels compile at the first call, in the bench's warm-up). The
    inputs never require gradients, so a forward writes no gradient into them."""
    eager = prepare_torch_eager(fn, output, args)

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            importlib.import_module(module)
        except ImportError as e:
            return f"not installed: {e.name}"
        except Exception as e:  # noqa: BLE001 - a package that fails while importing is a skip, not a crash
            return f"{module} failed to import: {type(e).__name__}: {e}"[:500]
        return eager(contract, shape, point)

    return prepare


def _package_peer(name: str, module: str, title: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs,
                  convert: Convert | None, note: str, tolerance: dict[str, Tolerance] | None) -> Peer:
    """The peer ``name`` of package ``module``, titled ``title`` and ``note`` in parentheses."""
    prepare = prepare_package(module, fn, output, args)
    if convert is not None:
        prepare = convert_on_read(prepare, convert)
    return Peer(name, title + (f" ({note})" if note else ""), prepare, tolerance)


def liger_peer(call: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs = no_args, *,
               convert: Convert | None = None, note: str = "",
               tolerance: dict[str, Tolerance] | None = None) -> Peer:
    """Liger-Kernel's Triton kernel for the problem (``call`` names it in the title), the fused
    kernels users put into Hugging Face models in place of PyTorch's; ``convert``, ``note`` and
    ``tolerance`` as for torch_peers."""
    return _package_peer(LIGER, "liger_kernel", f"Liger-Kernel (Triton): {call}", fn, output, args, convert, note,
                         tolerance)


def quack_peer(call: str, fn: Callable[..., Any], output: Outputs, args: PeerArgs = no_args, *,
               convert: Convert | None = None, note: str = "",
               tolerance: dict[str, Tolerance] | None = None) -> Peer:
    """QuACK's kernel for the problem (``quack-kernels``: memory-bound kernels written in CUTLASS's
    Python DSL, CuTe DSL, for Hopper and Blackwell); as liger_peer otherwise. Its wheels with the
    DSL's (about 106 MB) exceed what one call to a lent GPU carries; tools/carry-parts.sh brings them
    in parts (docs/GPU.md), and without them its rows are skipped, "not installed: quack"."""
    return _package_peer(QUACK, "quack", f"QuACK (CuTe DSL): {call}", fn, output, args, convert, note, tolerance)
