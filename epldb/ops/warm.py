"""PyTorch's warm path: a call whose tensors match a call already planned skips the checks, the
dispatcher's lookups and the Array views, and goes from its key to a bound call.

- The key (``tensor_key``) is the op (with its problem), then each tensor's dtype, shape and device
  index, read straight off the tensors: what the checks of the first call (epldb.ops.arrays) found
  good. Only contiguity can differ between tensors of one key, so a warm call tests that alone.
  The scalars (``eps``, ``ignore_index``) are still checked every call, by the op.
- A ``TorchCall`` is a plan (epldb.ops.dispatch) bound to one op's arguments: which tensor or
  output each of the plan's arrays is, how each output is made (``empty_like`` where it has x's
  shape and dtype, a third of ``new_empty``'s host time), and which of the op's scalars each of
  the plan's scalars is. A call makes the outputs and scratch, reads the pointers and PyTorch's
  current raw stream, and hands them to ``Dispatcher.enqueue``, the launch loop every call shares.

Registered by the first call of a key (epldb.ops._run) and dropped with the dispatcher's plans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from epldb.ops import arrays

if TYPE_CHECKING:
    from epldb.ops.dispatch import Dispatcher, Plan


def tensor_key(op: Any, x: Any, *more: Any) -> tuple[Any, ...]:
    """The warm key of a call: ``op`` then (dtype, shape, device index) of each tensor, in order."""
    key = (op, x.dtype, x.shape, x.get_device())
    for t in more:
        key += (t.dtype, t.shape, t.get_device())
    return key


class TorchCall:
    """One plan bound to the tensors of one op: ``call(tensors, scalars)`` -> its output (every op
    has one)."""

    __slots__ = ("dispatcher", "plan", "device", "like", "shape", "dtype", "scratch", "order", "scalars",
                 "_empty_like", "_stream")

    def __init__(self, dispatcher: "Dispatcher", plan: "Plan", x: "arrays.Array", inputs: tuple[str, ...],
                 output: tuple[str, tuple[int, ...], str], scalars: tuple[str, ...]) -> None:
        torch = arrays._torch()
        name, shape, dtype = output
        self.dispatcher, self.plan, self.device = dispatcher, plan, x.device
        # empty_like(x) where the output has x's shape and dtype, else x.new_empty(shape, dtype)
        self.like, self.shape, self.dtype = shape == x.shape and dtype == x.dtype, shape, getattr(torch, dtype)
        self.scratch = tuple(((max(count, 1),), getattr(torch, dtype), zero) for _, dtype, count, zero in plan.scratch)
        # Where each of the plan's arrays is in (inputs, output, scratch), as a call lists them.
        names = [*inputs, name, *(s for s, _, _, _ in plan.scratch)]
        self.order = tuple(names.index(a) for a in plan.arrays)
        # The plan's scalars from the op's: None where they are the op's own, in its order (a call
        # passes its tuple through); else (index among the op's or -1 for the default, default).
        picks = tuple((scalars.index(s) if s in scalars else -1, default) for s, default in plan.scalars)
        self.scalars = None if [i for i, _ in picks] == list(range(len(scalars))) else picks
        self._empty_like = torch.empty_like
        stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self._stream = stream or (lambda device: torch.cuda.current_stream(device).cuda_stream)

    def __call__(self, tensors: tuple[Any, ...], scalars: tuple[float | int, ...] = ()) -> Any:
        x = tensors[0]
        y = self._empty_like(x) if self.like else x.new_empty(self.shape, dtype=self.dtype)
        made = (*tensors, y)
        if self.scratch:  # kept in ``made`` until the launch is queued
            made += tuple(x.new_zeros(shape, dtype=dtype) if zero else x.new_empty(shape, dtype=dtype)
                          for shape, dtype, zero in self.scratch)
        values = scalars if self.scalars is None else [scalars[i] if i >= 0 else d for i, d in self.scalars]
        self.dispatcher.enqueue(self.plan, self.device, [made[i].data_ptr() for i in self.order], values,
                                self._stream(self.device))
        return y
