"""Contract layout-transpose: the reference is the inputs rearranged exactly, the tolerance zero."""

from __future__ import annotations

import numpy as np
import pytest

from epldb.contracts import get_contract
from epldb.contracts.base import make_rng
from epldb.contracts.dtypes import to_float64

C = get_contract("layout-transpose")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_reference_swaps_the_last_two_axes_exactly(dtype: str) -> None:
    shape = {"batch": 2, "rows": 3, "cols": 5}
    x = C.make_inputs(shape, dtype, {"dtype": dtype}, make_rng(np, 1))["x"]
    y = C.reference({"x": x}, shape, {"dtype": dtype})["y"]
    v = to_float64(x, dtype).reshape(2, 3, 5)
    assert y.shape == (2, 5, 3) and all(y[b, j, i] == v[b, i, j] for b in range(2) for i in range(3) for j in range(5))
    assert np.all(v != 0) and C.tolerance[dtype].max_rel == 0.0


def test_shapes_traffic_and_odd_sizes() -> None:
    assert C.shape_of({"x": np.zeros((4, 7))}, {}) == {"batch": 1, "rows": 4, "cols": 7}
    assert C.bytes_moved({"batch": 1, "rows": 8192, "cols": 8192}, {"dtype": "float32"}) == 2 * 8192 * 8192 * 4
    assert any(s["rows"] % 2 and s["cols"] % 2 for s in C.verify_shapes)
    assert any(2 * s["rows"] * s["cols"] * 4 >= 64 << 20 for s in C.bench_shapes_full)
