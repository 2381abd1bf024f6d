"""The arrays an op is called with: PyTorch CUDA tensors or CuPy arrays, checked and seen as raw
device pointers, and outputs allocated by the same library on the same device and stream.

Nothing here imports PyTorch or CuPy at module import; a tensor's library is read from its type.
Every check raises OpError with a plain sentence naming the argument and what to do.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from epldb.runner import RunError, cupy_module

#: dtypes the row and reduction realizations are built for, by library dtype name.
SUPPORTED = ("float32", "bfloat16")


class OpError(RunError, ValueError):
    """Bad input to an epldb.ops callable: one plain sentence, nothing launched."""

    def __init__(self, message: str) -> None:
        super().__init__("skipped", message)


class Array(NamedTuple):
    """One argument seen by the dispatcher (a tuple: a call makes a few, and cheaply)."""

    value: Any  # the caller's tensor or array
    library: str  # "torch" | "cupy"
    dtype: str  # catalog dtype name
    shape: tuple[int, ...]
    ptr: int
    device: int

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


class _NoTensor:
    """Stands for PyTorch's Tensor type until a tensor has been seen: no object is one."""


#: torch.Tensor once a tensor has passed ``inspect`` (what the ops' warm path tests calls against).
TENSOR: type = _NoTensor

_LIBRARY: dict[type, str] = {}
_TORCH_DTYPE_NAMES: dict[Any, str] = {}


def _library(value: Any) -> str:
    kind = type(value)
    lib = _LIBRARY.get(kind)
    if lib is None:
        lib = _LIBRARY[kind] = kind.__module__.split(".")[0]
    return lib


def inspect(name: str, value: Any, *, dtypes: tuple[str, ...] = SUPPORTED, contiguous: bool = True) -> Array:
    """Check one argument: a CUDA tensor or CuPy array of a supported dtype, contiguous."""
    global TENSOR
    lib = _library(value)
    if lib == "torch":
        if TENSOR is _NoTensor:
            TENSOR = _torch().Tensor
        if not value.is_cuda:
            raise OpError(f"{name} is a PyTorch tensor on {value.device}: move it to a CUDA device first "
                          f"({name}.cuda())")
        dtype = _TORCH_DTYPE_NAMES.get(value.dtype) or _TORCH_DTYPE_NAMES.setdefault(
            value.dtype, str(value.dtype).replace("torch.", ""))
        shape = tuple(value.shape)  # torch.Size: a tuple of ints already
        if contiguous and not value.is_contiguous():
            raise OpError(f"{name} is not contiguous (strides {tuple(value.stride())} for shape {shape}): "
                          f"pass {name}.contiguous()")
        ptr, device = value.data_ptr(), value.get_device()
    elif lib == "cupy":
        dtype = str(value.dtype)
        if dtype == "uint16":  # CuPy has no bfloat16: its uint16 arrays are read as bfloat16 bits
            dtype = "bfloat16"
        shape = tuple(int(d) for d in value.shape)
        if contiguous and not value.flags.c_contiguous:
            raise OpError(f"{name} is not C-contiguous (strides {value.strides} for shape {shape}): "
                          f"pass cupy.ascontiguousarray({name})")
        ptr, device = int(value.data.ptr), int(value.device.id)
    elif lib == "numpy":
        raise OpError(f"{name} is a NumPy array in host memory: pass a PyTorch CUDA tensor or a CuPy array")
    else:
        raise OpError(f"{name} is a {type(value).__module__}.{type(value).__name__}: pass a PyTorch CUDA tensor "
                      "or a CuPy array")
    if dtype not in dtypes:
        raise OpError(f"{name} is {dtype}; this op takes {' or '.join(dtypes)}")
    return Array(value, lib, dtype, shape, ptr, device)


def same_place(first: Array, other: Array, name: str) -> None:
    if other.library != first.library:
        raise OpError(f"{name} is a {other.library} array and x a {first.library} one: pass both from one library")
    if other.device != first.device:
        raise OpError(f"{name} is on CUDA device {other.device} and x on device {first.device}: put them on one")


_TORCH: Any = None  # the torch module, once a tensor has been seen
_TORCH_DTYPES: dict[str, Any] = {}
_RAW_STREAM: Any = None  # torch._C._cuda_getCurrentRawStream, or False where this torch lacks it


def _torch() -> Any:
    global _TORCH
    if _TORCH is None:
        import torch

        _TORCH = torch
    return _TORCH


def empty(like: Array, shape: tuple[int, ...], dtype: str) -> tuple[Any, int]:
    """A new array of ``dtype`` on x's device, by x's library; with its device pointer. An array of
    x's own shape and dtype is ``empty_like`` (x is contiguous, so it is too): PyTorch makes it in
    a third of ``new_empty``'s host time."""
    if like.library == "torch":
        if shape == like.shape and dtype == like.dtype:
            t = _torch().empty_like(like.value)
        else:
            tdtype = _TORCH_DTYPES.get(dtype)
            if tdtype is None:
                tdtype = _TORCH_DTYPES[dtype] = getattr(_torch(), dtype)
            t = like.value.new_empty(shape, dtype=tdtype)
        return t, t.data_ptr()
    cupy = cupy_module()
    storage = "uint16" if dtype == "bfloat16" else dtype
    with cupy.cuda.Device(like.device):
        a = cupy.empty(shape, dtype=storage)
    return a, int(a.data.ptr)


def stream_of(like: Array) -> int:
    """The stream handle to launch on: PyTorch's current stream for tensors, CuPy's current stream
    for CuPy arrays."""
    global _RAW_STREAM
    if like.library == "torch":
        if _RAW_STREAM is None:
            # what torch.compile's kernels read; the public call where this torch has no such entry
            _RAW_STREAM = getattr(_torch()._C, "_cuda_getCurrentRawStream", None) or False
        if _RAW_STREAM:
            return int(_RAW_STREAM(like.device))
        return int(_torch().cuda.current_stream(like.device).cuda_stream)
    return int(cupy_module().cuda.get_current_stream().ptr)
