"""Peers: PyTorch eager, torch.compile and CuPy solving a contract's problem beside our kernels.

What every peer shares lives here: the lazy imports (a missing package is a skip reason, never an
exception), CuPy arrays handed to PyTorch and back through DLPack (bfloat16 through an int16
view), the cache of compiled functions, and CuPy's lack of bfloat16 arithmetic. A contract gives
only what differs: the function that computes its output from the input array, the arguments that
function takes after the input (read off the point once, when the peer is prepared), the output's
name and the peer's title. Peers solve one-input problems (the contract's first input).

The peer names are part of the evidence: rows are ``<contract>/<peer name>`` and the site groups by
them, so they are fixed here and never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from epldb.contracts.base import Arrays, Contract, Peer, PeerCall, Point, Shape

TORCH_EAGER = "torch-eager"
TORCH_COMPILE = "torch-compile"
CUPY = "cupy"

#: The arguments a peer function takes after its input array, for one instance.
PeerArgs = Callable[[Contract, Shape, Point], tuple[Any, ...]]
#: Prepares a peer for one instance: the call, or why the peer cannot solve it.
Prepare = Callable[[Contract, Shape, Point], "PeerCall | str"]

#: torch.compile wrappers by (function, dynamic); filled when a peer is prepared, never at import.
_COMPILED: dict[tuple[Callable[..., Any], bool], Any] = {}


def as_torch(x: Any, dtype: str) -> Any:
    """The CuPy array ``x`` (catalog dtype ``dtype``) as a torch tensor on the same memory.

    bfloat16 is stored as uint16, which DLPack hands over as torch.uint16 (few kernels): it goes
    through an int16 view and is viewed as torch.bfloat16.
    """
    import torch

    if dtype == "bfloat16":
        return torch.from_dlpack(x.view("int16")).view(torch.bfloat16)
    return torch.from_dlpack(x)


def _compiled(fn: Callable[..., Any], dynamic: bool) -> Any:
    """One torch.compile wrapper per function: dynamo keys its graphs on the function's code and
    guards on the arguments (dtype, op, and shapes unless ``dynamic``)."""
    import torch

    if (fn, dynamic) not in _COMPILED:
        _COMPILED[(fn, dynamic)] = torch.compile(fn, dynamic=dynamic)
    return _COMPILED[(fn, dynamic)]


def raise_recompile_limit(limit: int) -> None:
    """Let dynamo keep at least ``limit`` graphs per function before it falls back to eager
    (silently, at its default of 8). Called when a peer is prepared, never at import."""
    import torch

    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):  # the newer name, and the older one
        if hasattr(config, name):
            setattr(config, name, max(getattr(config, name), limit))


def prepare_torch_eager(fn: Callable[..., Any], output: str, args: PeerArgs) -> Prepare:
    """A peer running ``fn(tensor, *args)`` eagerly; its result (a tensor) is the output."""

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            import cupy
            import torch  # noqa: F401
        except ImportError as e:
            return f"not installed: {e.name}"
        name, dtype, a = contract.input_names[0], contract.dtype_of(point), args(contract, shape, point)

        def call(inputs: Arrays) -> dict[str, Any]:
            return {output: cupy.from_dlpack(fn(as_torch(inputs[name], dtype), *a))}

        return call

    return prepare


def prepare_torch_compile(fn: Callable[..., Any], output: str, args: PeerArgs, *, dynamic: bool,
                          recompile_limit: int | None = None) -> Prepare:
    """A peer running ``torch.compile(fn, dynamic=dynamic)(tensor, *args)``.

    ``dynamic=True``: one graph for every size (and every integer argument), so a run does not
    recompile per shape; ``dynamic=False``: a graph per shape, specialized to it, which needs
    ``recompile_limit`` above the number of shapes x dtypes x ops a run compiles.
    """

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            import cupy
            import torch  # noqa: F401
        except ImportError as e:
            return f"not installed: {e.name}"
        if recompile_limit is not None:
            raise_recompile_limit(recompile_limit)
        name, dtype, a = contract.input_names[0], contract.dtype_of(point), args(contract, shape, point)
        compiled = _compiled(fn, dynamic)

        def call(inputs: Arrays) -> dict[str, Any]:
            return {output: cupy.from_dlpack(compiled(as_torch(inputs[name], dtype), *a))}

        return call

    return prepare


def prepare_cupy(fn: Callable[..., Any], output: str, args: PeerArgs) -> Prepare:
    """A peer running ``fn(array, *args)`` on the CuPy input; its result (a CuPy array) is the
    output. Skips bfloat16: CuPy stores it as uint16 and has no arithmetic for it."""

    def prepare(contract: Contract, shape: Shape, point: Point) -> PeerCall | str:
        try:
            import cupy  # noqa: F401
        except ImportError as e:
            return f"not installed: {e.name}"
        if contract.dtype_of(point) == "bfloat16":
            return "CuPy has no bfloat16 arithmetic"
        name, a = contract.input_names[0], args(contract, shape, point)

        def call(inputs: Arrays) -> dict[str, Any]:
            return {output: fn(inputs[name], *a)}

        return call

    return prepare


def torch_eager_peer(title: str, fn: Callable[..., Any], output: str, args: PeerArgs) -> Peer:
    return Peer(TORCH_EAGER, title, prepare_torch_eager(fn, output, args))


def torch_compile_peer(title: str, fn: Callable[..., Any], output: str, args: PeerArgs, *, dynamic: bool,
                       recompile_limit: int | None = None) -> Peer:
    return Peer(TORCH_COMPILE, title,
                prepare_torch_compile(fn, output, args, dynamic=dynamic, recompile_limit=recompile_limit))


def cupy_peer(title: str, fn: Callable[..., Any], output: str, args: PeerArgs) -> Peer:
    return Peer(CUPY, title, prepare_cupy(fn, output, args))
