"""Degenerate rows (issue 33): where the mathematics is exact the contracts say so (exact_outputs) and
verify holds the realizations to it bit for bit; every row operator's record says what it returns on
degenerate input (``degenerate``), checked here on the GPU against torch.

Without a GPU: the contract side (constant layernorm rows, one-element rows of the softmax family,
the inexact-element count), the records, and why the pivot is needed (a float32 model of the
two-pass statistics). On a GPU (EPL_NO_PREBUILD=1 builds only what a test loads): zero rows launch
nothing, and NaN, inf and constant rows come out of the realizations as torch returns them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import epldb
from epldb.contracts import get_contract
from epldb.contracts.base import make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.verify import inexact_elements

ROW_OPERATORS = ("softmax", "log-softmax", "logsumexp", "cross-entropy", "rmsnorm", "layernorm")


@pytest.fixture(scope="module")
def catalog() -> Any:
    return epldb.load(lint=False)


# --- without a GPU ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_layernorm_inputs_hold_constant_rows_whose_reference_is_the_bias(dtype: str) -> None:
    c = get_contract("row-layernorm")
    shape = {"rows": 29, "cols": 4097}
    inputs = c.make_inputs(shape, dtype, {"dtype": dtype}, make_rng(np, 7), np)
    x = to_float64(inputs["x"], dtype).reshape(29, 4097)
    constant = np.all(x == x[:, :1], axis=1)
    assert list(np.flatnonzero(constant)) == [5, 13, 21]  # r % 8 == 5, and no other row
    ref = c.reference(inputs, shape, {"dtype": dtype})["y"].reshape(29, 4097)
    bias = to_float64(inputs["bias"], dtype)
    assert np.array_equal(ref[constant], np.broadcast_to(bias, (3, 4097)))
    mask = c.exact_outputs(shape, {"dtype": dtype})["y"].reshape(29, 4097)
    assert np.array_equal(mask.all(axis=1), constant) and not mask[~constant].any()


@pytest.mark.parametrize(("contract", "output", "value"), [
    ("row-softmax", "y", lambda x: np.ones_like(x)),
    ("row-log-softmax", "y", lambda x: np.zeros_like(x)),
    ("row-logsumexp", "out", lambda x: x),
    ("row-cross-entropy", "loss", lambda x: np.zeros_like(x)),
    ("row-layernorm", "y", None),
])
def test_rows_of_one_element_are_exact(contract: str, output: str, value: Any) -> None:
    c = get_contract(contract)
    shape = {"rows": 37, "cols": 1}
    point = {"dtype": "float32"}
    mask = c.exact_outputs(shape, point)[output]
    assert mask.shape == (37,) and mask.all()
    inputs = c.make_inputs(shape, "float32", point, make_rng(np, 3), np)
    ref = c.reference(inputs, shape, point)[output].ravel()
    x = to_float64(inputs["x"], "float32").ravel()
    finite = np.isfinite(x)  # the softmax family's inputs hold all -inf rows
    expect = to_float64(inputs["bias"], "float32") if value is None else value(x)
    assert np.array_equal(ref[finite], np.broadcast_to(expect, ref.shape)[finite])
    two = c.exact_outputs({"rows": 37, "cols": 2}, point)  # longer rows: only layernorm's constant ones
    assert two == {} if value is not None else int(two["y"].sum()) == 2 * 4  # rows 5, 13, 21, 29


def test_rmsnorm_claims_no_exact_output() -> None:
    assert get_contract("row-rmsnorm").exact_outputs({"rows": 8, "cols": 1}, {"dtype": "float32"}) == {}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_inexact_elements_counts_a_one_ulp_miss_and_nothing_else(dtype: str) -> None:
    ref = np.array([0.75, -1.25, 3.0, np.nan, 7.0])
    got = to_float64(from_float64(ref, dtype), dtype)
    mask = np.array([True, True, True, True, False])
    assert inexact_elements(got, ref, mask, dtype) == (0, None)
    got[2] = np.nextafter(np.float32(3.0), np.float32(4.0)) if dtype == "float32" else 3.015625
    got[4] = 0.0  # outside the mask: the tolerance's business
    assert inexact_elements(got, ref, mask, dtype) == (1, 2)


def _two_pass_float32(x: np.ndarray, pivot: bool) -> np.ndarray:
    """Layernorm's register two-pass statistics in float32 (sum, then squared deviations), with or
    without the row-head pivot; y with weight 1 and bias 0."""
    x = x.astype(np.float32)
    n = np.float32(x.shape[1])
    p = x[:, :1] if pivot else np.zeros_like(x[:, :1])
    mean = p + (x - p).sum(axis=1, dtype=np.float32, keepdims=True) / n
    var = ((x - mean) ** 2).sum(axis=1, dtype=np.float32, keepdims=True) / n
    return (x - mean) / np.sqrt(var + np.float32(1e-5))


def test_the_pivot_is_what_makes_a_constant_row_exact() -> None:
    rows = np.float32([[0.1], [3.3], [-7.77], [1234.567], [1e-3]]) * np.ones((1, 4097), np.float32)
    assert np.any(_two_pass_float32(rows, pivot=False) != 0.0)  # sum / n rounds: x - mean is not 0
    assert np.all(_two_pass_float32(rows, pivot=True) == 0.0)  # y = bias, bit for bit


def test_every_row_operator_documents_its_degenerate_inputs(catalog: Any) -> None:
    for op in ROW_OPERATORS:
        cases = dict(catalog.operators[op].degenerate)
        assert {"one-element", "zero-rows", "nan", "inf"} <= set(cases), op
        assert "torch" in " ".join(cases.values()), op
    assert "constant-row" in dict(catalog.operators["layernorm"].degenerate)


# --- on a GPU -----------------------------------------------------------------------------------------

#: One realization per row operator, each with its contract's input order.
REALIZATIONS = {
    "softmax": "softmax/online-registers",
    "log-softmax": "log-softmax/online-registers",
    "logsumexp": "logsumexp/online-stream",
    "cross-entropy": "cross-entropy/online-stream",
    "rmsnorm": "rmsnorm/registers",
    "layernorm": "layernorm/two-pass-registers",
}
#: What this module's GPU tests load, prebuilt side by side by tests/conftest.py.
GPU_REALIZATIONS = tuple(REALIZATIONS.values())


def _torch_of(op: str, x: Any, w: Any, b: Any, t: Any) -> Any:
    import torch
    import torch.nn.functional as F

    n = x.shape[1]
    return {"softmax": lambda: torch.softmax(x, 1), "log-softmax": lambda: torch.log_softmax(x, 1),
            "logsumexp": lambda: torch.logsumexp(x.float(), 1),
            "cross-entropy": lambda: F.cross_entropy(x.float(), t, reduction="none"),
            "rmsnorm": lambda: F.rms_norm(x, (n,), w, 1e-5), "layernorm": lambda: F.layer_norm(x, (n,), w, b, 1e-5)}[op]()


def _ours(op: str, x: Any, w: Any, b: Any, t: Any) -> Any:
    args = {"rmsnorm": (x, w), "layernorm": (x, w, b), "cross-entropy": (x, t)}.get(op, (x,))
    return epldb.run(REALIZATIONS[op], *args)


@pytest.mark.gpu
@pytest.mark.parametrize("op", ROW_OPERATORS)
def test_zero_rows_launch_nothing_and_return_empty(op: str) -> None:
    torch = pytest.importorskip("torch")
    import epldb.ops as ops

    x = torch.empty(0, 4097, device="cuda")
    w = torch.ones(4097, device="cuda")
    t = torch.empty(0, dtype=torch.int64, device="cuda")
    got = {"softmax": lambda: ops.softmax(x), "log-softmax": lambda: ops.log_softmax(x),
           "logsumexp": lambda: ops.logsumexp(x), "cross-entropy": lambda: ops.cross_entropy(x, t, reduction="none"),
           "rmsnorm": lambda: ops.rmsnorm(x, w), "layernorm": lambda: ops.layernorm(x, w, w)}[op]()
    assert tuple(got.shape) == tuple(_torch_of(op, x, w, w, t).shape)
    assert tuple(_ours(op, x, w, w, t).shape)[0] == 0  # epldb.run: nothing launched, nothing to fill


#: Rows of 4097 elements with one special value at column 1000 (or the whole row): what torch returns
#: there is what the realization must return, except the softmax family's all -inf rows, which the
#: contracts define (softmax zeros, log-softmax -inf) where torch gives NaN.
SPECIALS = {"nan": float("nan"), "+inf": float("inf"), "-inf": float("-inf")}


#: Where torch disagrees with itself, the contract follows torch on the CPU (and x / inf = 0): rmsnorm's
#: rows holding an infinite element (+inf in row 1, -inf in rows 2 and 5: its square is +inf too)
#: give 0 at their finite elements and NaN at the infinite one, where torch on CUDA gives the whole
#: row NaN (first seen on an H100, verify run 20261206T190551Z-verify-9cae's call).
#: The softmax family's NaN rows deviated until the finalize tested l != 0 instead of l > 0.
CPU_CONVENTION = {"rmsnorm": (1, 2, 5)}


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("op", ROW_OPERATORS)
def test_nan_inf_and_constant_rows_come_out_as_torch_returns_them(op: str, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    dt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(5)
    cols = 4097
    x = torch.randn(8, cols, device="cuda", generator=g).to(dt)
    x[0, 1000], x[1, 1000], x[2, 1000] = SPECIALS["nan"], SPECIALS["+inf"], SPECIALS["-inf"]
    x[3, :] = 2.71875  # constant
    x[4, :] = float("-inf")  # all -inf
    x[5, 0] = float("-inf")  # the row head (layernorm's pivot) -inf
    w = (torch.rand(cols, device="cuda", generator=g) + 0.5).to(dt)
    b = torch.randn(cols, device="cuda", generator=g).to(dt)
    t = torch.full((8,), 1000, dtype=torch.int64, device="cuda")
    want = _torch_of(op, x, w, b, t).float()
    got = torch.as_tensor(_ours(op, x, w, b, t), device="cuda")
    got = (got.view(dt) if got.dtype != dt and op not in ("logsumexp", "cross-entropy") else got).float()
    got = got.reshape(want.shape)
    if op in ("softmax", "log-softmax"):  # the contract's convention for a fully masked row
        want[4] = 0.0 if op == "softmax" else float("-inf")
    for r in CPU_CONVENTION.get(op, ()):
        want[r] = _torch_of(op, x[r:r + 1].cpu(), w.cpu(), b.cpu(), t[r:r + 1].cpu()).float()[0].cuda()
    for r in (0, 1, 2, 4, 5):  # where a special value is: the same class of value, place by place
        assert torch.equal(torch.isnan(got[r]), torch.isnan(want[r])), (op, r)
        assert torch.equal(torch.isinf(got[r]), torch.isinf(want[r])), (op, r)
        fin = torch.isfinite(want[r])
        assert torch.allclose(got[r][fin], want[r][fin], rtol=2e-2, atol=2e-2), (op, r)
    if op == "layernorm":
        assert torch.equal(got[3], b.float()), "a constant row gives the bias bit for bit"
