"""Element types as stored on the host and the device, and exact conversions to float64.

NumPy and CuPy have no bfloat16, so a bfloat16 array lives as its raw 16 bits in a ``uint16``
array: the kernel reads it as ``__nv_bfloat16``, PyTorch views it as ``torch.bfloat16``, and the
reference widens it exactly (bfloat16 is the top half of a float32). Every function here takes the
array module ``xp`` (NumPy or CuPy), so the same code runs on either side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The array dtype that stores each catalog dtype.
STORAGE: dict[str, str] = {
    "float64": "float64",
    "float32": "float32",
    "float16": "float16",
    "bfloat16": "uint16",
    "int64": "int64",
    "int32": "int32",
    "uint32": "uint32",
    "int8": "int8",
}

FLOAT_DTYPES = ("float64", "float32", "float16", "bfloat16")


def storage_dtype(dtype: str) -> np.dtype:
    return np.dtype(STORAGE[dtype])


def itemsize(dtype: str) -> int:
    return storage_dtype(dtype).itemsize


def to_float64(a: Any, dtype: str, xp: Any = np) -> Any:
    """The exact float64 values of ``a`` (stored as ``STORAGE[dtype]``)."""
    if dtype == "bfloat16":
        return (a.astype(xp.uint32) << 16).view(xp.float32).astype(xp.float64)
    return a.astype(xp.float64)


def from_float64(values: Any, dtype: str, xp: Any = np) -> Any:
    """Round float64 ``values`` to ``dtype`` (to nearest even), as its storage array."""
    if dtype == "bfloat16":
        bits = values.astype(xp.float32).view(xp.uint32)
        # Round to nearest even on the 16 bits dropped; inputs here are finite, so no NaN care.
        rounded = bits + xp.uint32(0x7FFF) + ((bits >> 16) & xp.uint32(1))
        return (rounded >> 16).astype(xp.uint16)
    return values.astype(STORAGE[dtype])


def poison_pattern(dtype: str) -> int:
    """The byte every poisoned buffer is filled with: 0xFF makes every float a NaN."""
    return 0xFF
