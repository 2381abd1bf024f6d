"""Callables a model can use in place of PyTorch's: each picks the realization and parameter point
the evidence selects for its shape, dtype and GPU (epldb.select), and launches it on the caller's
stream (epldb.ops.dispatch).

    import epldb.ops
    y = epldb.ops.rmsnorm(x, weight, eps=1e-6)       # for torch.nn.functional.rms_norm(x, (n,), weight, 1e-6)

Arguments are PyTorch CUDA tensors or CuPy arrays (CuPy has no bfloat16: its uint16 arrays are read
as bfloat16 bits), float32 or bfloat16, contiguous, with any leading dimensions: an op works along
the last one, over ``prod(shape[:-1])`` rows. Outputs come from the input's library on its device.
Maps (softmax, log_softmax, the norms) return x's shape and dtype; reductions (logsumexp, sum, max,
cross_entropy) return float32, the dtype they accumulate in. Scalars such as ``eps`` are kernel
arguments at run time. Bad input raises ``OpError`` (a ValueError) with a plain sentence before
anything is launched; without CuPy, ``RunError``.
"""

from __future__ import annotations

from typing import Any

from epldb.ops import arrays
from epldb.ops.arrays import Array, OpError, empty, inspect, same_place
from epldb.ops.dispatch import Dispatcher, dispatcher
from epldb.ops.warm import TorchCall, tensor_key

__all__ = ["Dispatcher", "OpError", "cross_entropy", "layernorm", "log_softmax", "logsumexp", "max", "rmsnorm",
           "softmax", "sum"]


def _rows(x: Array, dim: int | None, op: str) -> tuple[int, int]:
    if dim not in (-1, len(x.shape) - 1) or not x.shape:
        raise OpError(f"{op} works along the last dimension (dim=-1) of an array of at least one dimension; "
                      f"got dim={dim} for shape {x.shape}: move that dimension last and make it contiguous")
    cols = x.shape[-1]
    return (x.size // cols if cols else 0), cols


def _check_vector(name: str, v: Array, x: Array, cols: int) -> None:
    same_place(x, v, name)
    if v.shape != (cols,):
        raise OpError(f"{name} has shape {v.shape}; it must be ({cols},), one value per column of x")
    if v.dtype != x.dtype:
        raise OpError(f"{name} is {v.dtype} and x {x.dtype}: pass {name} in x's dtype")


def _run(subject: str, x: Array, inputs: dict[str, Array], shape: dict[str, int], outputs: dict[str, tuple[tuple[int, ...], str]],
         problem: dict[str, Any] | None = None, scalars: dict[str, float | int] | None = None,
         key: tuple[Any, ...] | None = None) -> dict[str, Any]:
    """The checked path: plan (once per shape) and launch. ``key``: the op's warm key
    (epldb.ops.warm.tensor_key) for PyTorch tensors, under which the call that follows this one
    finds its plan bound (TorchCall), with ``inputs`` and ``scalars`` in the order it passes them."""
    d = dispatcher()
    if x.device != d.device:
        d.on_device(x)
    # The warm path: one lookup by x's own shape tuple (the shape dict is read only on a miss).
    k = (subject, x.dtype, x.shape, tuple(problem.items()) if problem else ())
    plan = d.warm.get(k)
    if plan is None:
        plan = d.warm[k] = d.plan(subject, shape, x.dtype, problem or {})
    if key is not None and x.library == "torch":
        (name, (out_shape, dtype)), = outputs.items()  # every op has one output
        d.calls[key] = TorchCall(d, plan, x, tuple(inputs), (name, out_shape, dtype), tuple(scalars or ()))
    pointers = {name: a.ptr for name, a in inputs.items()}
    made: dict[str, Any] = {}
    for name, (out_shape, dtype) in outputs.items():
        made[name], pointers[name] = empty(x, out_shape, dtype)
    d.launch(plan, x, pointers, scalars or {})
    return made


def _fill(x: Array, shape: tuple[int, ...], value: float) -> Any:
    out, _ = empty(x, shape, "float32")
    out.fill(value) if x.library == "cupy" else out.fill_(value)
    return out


def _warm(op: Any, tensors: tuple[Any, ...], scalars: tuple[float | int, ...] = ()) -> Any:
    """The output of a warm PyTorch call (epldb.ops.warm), or None where the call is not one: the
    tensors are not all tensors, their key was never planned, or one is not contiguous."""
    for t in tensors:
        if not isinstance(t, arrays.TENSOR):
            return None
    call = dispatcher().calls.get(tensor_key(op, *tensors))
    if call is None:
        return None
    for t in tensors:
        if not t.is_contiguous():
            return None
    return call(tensors, scalars)


def _key(op: Any, a: Array, *more: Array) -> tuple[Any, ...] | None:
    """The warm key a checked call registers (PyTorch tensors only)."""
    return tensor_key(op, a.value, *(m.value for m in more)) if a.library == "torch" else None


def _map(subject: str, x: Any, dim: int, extra: dict[str, Any] | None = None,
         scalars: dict[str, float] | None = None) -> Any:
    if dim == -1:
        y = _warm(subject, (x, *(extra or {}).values()), tuple((scalars or {}).values()))
        if y is not None:
            return y
    a = inspect("x", x)
    rows, cols = _rows(a, dim, subject)
    inputs = {"x": a}
    for name, v in (extra or {}).items():
        inputs[name] = inspect(name, v)
        _check_vector(name, inputs[name], a, cols)
    if rows == 0 or cols == 0:
        return empty(a, a.shape, a.dtype)[0]
    key = _key(subject, *inputs.values()) if dim == -1 else None
    return _run(subject, a, inputs, {"rows": rows, "cols": cols}, {"y": (a.shape, a.dtype)}, scalars=scalars,
                key=key)["y"]


def softmax(x: Any, dim: int = -1) -> Any:
    """exp(x - max) / sum(exp(x - max)) along the last dimension, in x's dtype."""
    return _map("softmax", x, dim)


def log_softmax(x: Any, dim: int = -1) -> Any:
    """x - max - log(sum(exp(x - max))) along the last dimension, in x's dtype."""
    return _map("log-softmax", x, dim)


def _check_eps(eps: float) -> float:
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not eps >= 0 or eps == float("inf"):
        raise OpError(f"eps must be a finite number >= 0; got {eps!r}")
    return float(eps)


def rmsnorm(x: Any, weight: Any, eps: float = 1e-6) -> Any:
    """x * rsqrt(mean(x^2) + eps) * weight per row (torch.nn.functional.rms_norm(x, (n,), weight, eps))."""
    return _map("rmsnorm", x, -1, {"weight": weight}, {"eps": _check_eps(eps)})


def layernorm(x: Any, weight: Any, bias: Any, eps: float = 1e-5) -> Any:
    """(x - mean) * rsqrt(var + eps) * weight + bias per row (torch.nn.functional.layer_norm(x, (n,),
    weight, bias, eps))."""
    return _map("layernorm", x, -1, {"weight": weight, "bias": bias}, {"eps": _check_eps(eps)})


def logsumexp(x: Any, dim: int = -1) -> Any:
    """log(sum(exp(x))) along the last dimension, float32, of shape x.shape[:-1] (-inf for empty rows)."""
    if dim == -1 and (out := _warm("logsumexp", (x,))) is not None:
        return out
    a = inspect("x", x)
    rows, cols = _rows(a, dim, "logsumexp")
    if rows == 0 or cols == 0:
        return _fill(a, a.shape[:-1], float("-inf"))
    return _run("logsumexp", a, {"x": a}, {"rows": rows, "cols": cols}, {"out": (a.shape[:-1], "float32")},
                key=_key("logsumexp", a) if dim == -1 else None)["out"]


def _reduce(op: str, x: Any, dim: int | None) -> Any:
    subject = "device-reduce" if dim is None else "segmented-row-reduce"
    if dim in (None, -1) and (out := _warm((subject, op), (x,))) is not None:
        return out
    a = inspect("x", x)
    if dim is None:
        if a.size == 0:
            if op == "max":
                raise OpError("max of an empty array has no value")
            return _fill(a, (), 0.0)
        return _run(subject, a, {"x": a}, {"n": a.size}, {"out": ((), "float32")}, {"op": op},
                    key=_key((subject, op), a))["out"]
    rows, cols = _rows(a, dim, op)
    if rows == 0:
        return _fill(a, a.shape[:-1], 0.0)
    if cols == 0:
        if op == "max":
            raise OpError(f"max along a dimension of length 0 has no value (shape {a.shape})")
        return _fill(a, a.shape[:-1], 0.0)
    return _run(subject, a, {"x": a}, {"rows": rows, "cols": cols}, {"out": (a.shape[:-1], "float32")},
                {"op": op}, key=_key((subject, op), a) if dim == -1 else None)["out"]


def sum(x: Any, dim: int | None = None) -> Any:  # noqa: A001 - the op's name, as torch.sum
    """The sum of every element (dim=None), or of each row along the last dimension (dim=-1), float32."""
    return _reduce("sum", x, dim)


def max(x: Any, dim: int | None = None) -> Any:  # noqa: A001 - the op's name, as torch.amax
    """The maximum of every element (dim=None) or of each row (dim=-1), float32 (as torch.amax)."""
    return _reduce("max", x, dim)


_REDUCTIONS = ("none", "mean", "sum")


def cross_entropy(logits: Any, target: Any, ignore_index: int = -100, reduction: str = "mean") -> Any:
    """torch.nn.functional.cross_entropy(logits, target, ignore_index=..., reduction=...) over the last
    dimension of logits, float32. Rows whose target is ignore_index give 0 and leave the mean; a
    target outside [0, classes) gives NaN (the kernel's, on the device: nothing is synchronized)."""
    if reduction not in _REDUCTIONS:
        raise OpError(f"reduction must be one of {', '.join(_REDUCTIONS)}; got {reduction!r}")
    if not isinstance(ignore_index, int) or isinstance(ignore_index, bool) or not -(2**31) <= ignore_index < 2**31:
        raise OpError(f"ignore_index must be an int in the 32-bit range; got {ignore_index!r}")
    loss = _warm("cross-entropy", (logits, target), (ignore_index,))
    if loss is None:
        loss = _cross_entropy_checked(logits, target, ignore_index)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    kept = (target != ignore_index).sum()
    return loss.sum() / kept  # 0 / 0 = NaN when every row is ignored, as PyTorch gives


def _cross_entropy_checked(logits: Any, target: Any, ignore_index: int) -> Any:
    a = inspect("logits", logits)
    rows, cols = _rows(a, -1, "cross_entropy")
    t = inspect("target", target, dtypes=("int64",))
    same_place(a, t, "target")
    if t.shape != a.shape[:-1]:
        raise OpError(f"target has shape {t.shape}; it must be logits.shape[:-1] = {a.shape[:-1]}")
    if cols == 0 and rows:
        raise OpError("logits have 0 classes: a cross-entropy needs at least one")
    if rows:  # the kernel gives 0 for ignored rows and NaN for targets outside the row
        return _run("cross-entropy", a, {"x": a, "target": t}, {"rows": rows, "cols": cols},
                    {"loss": (a.shape[:-1], "float32")}, scalars={"ignore_index": ignore_index},
                    key=_key("cross-entropy", a, t))["loss"]
    return _fill(a, a.shape[:-1], 0.0)

