"""The names a launch-plan expression may read at one shape and parameter point, and the element
sizes of the dtypes the catalog names (shared by the plan and its domain)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Bytes per element of every dtype the catalog names (bfloat16 is stored as 16 raw bits).
ITEMSIZE: dict[str, int] = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "int64": 8,
    "int32": 4,
    "uint32": 4,
    "int8": 1,
}


def plan_env(shape: Mapping[str, int], point: Mapping[str, Any]) -> dict[str, Any]:
    """Names an expression may read: shape variables, parameters, and ``<param>_bytes`` for every
    parameter whose value is a dtype (so ``shared_bytes: "block * dtype_bytes"`` works)."""
    env: dict[str, Any] = dict(point)
    for k, v in point.items():
        if isinstance(v, str) and v in ITEMSIZE:
            env[f"{k}_bytes"] = ITEMSIZE[v]
    env.update(shape)
    return env
