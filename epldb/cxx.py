"""C++ spellings of parameter values, for filling NVRTC name expressions.

A realization's name expression (``block_reduce_harness<{block}, {dtype}, {op}>``) is written once;
each parameter point fills its placeholders with the value's C++ spelling. Integers and booleans
spell themselves; symbolic values are looked up here so that every kernel agrees on one spelling.
"""

from __future__ import annotations

import re

#: Element types as NumPy names them, mapped to the device type the kernels template on.
DTYPE_CPP: dict[str, str] = {
    "float64": "double",
    "float32": "float",
    "float16": "__half",
    "bfloat16": "__nv_bfloat16",
    "int64": "long long",
    "int32": "int",
    "uint32": "unsigned int",
    "int8": "signed char",
}

#: Binary reduction operators, defined in kernels/include/epl/thread/ops.cuh.
OP_CPP: dict[str, str] = {
    "sum": "epl::Sum",
    "max": "epl::Max",
    "min": "epl::Min",
}

_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def cpp_spelling(value: int | str | bool) -> str:
    """The C++ text that stands for one parameter value in a name expression."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value in DTYPE_CPP:
        return DTYPE_CPP[value]
    if value in OP_CPP:
        return OP_CPP[value]
    return value


def placeholders(expression: str) -> list[str]:
    """Names of the ``{param}`` placeholders in a name expression, in order of appearance."""
    return _PLACEHOLDER.findall(expression)


def fill_expression(expression: str, point: dict[str, int | str | bool]) -> str:
    """Fill a name expression's placeholders from one parameter point (KeyError if one is missing)."""
    return _PLACEHOLDER.sub(lambda m: cpp_spelling(point[m.group(1)]), expression)
