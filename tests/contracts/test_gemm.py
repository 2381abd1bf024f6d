"""The gemm contract on the CPU: inputs, the float64 reference, and a tolerance that passes a
float32-accumulated bfloat16 product and fails the usual bugs (a dropped ragged k tail, a lost k
tile, a transposed operand)."""

from __future__ import annotations

import numpy as np
import pytest

from epldb.contracts import get_contract
from epldb.contracts.base import make_rng
from epldb.contracts.dtypes import from_float64, to_float64
from epldb.contracts.gemm import Gemm
from epldb.verify import error_figures

SHAPE = {"m": 257, "n": 263, "k": 264}


def _case(layout: str) -> tuple[Gemm, dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    c = Gemm()
    point = {"layout": layout}
    inputs = c.make_inputs(SHAPE, "bfloat16", point, make_rng(np, 7), np)
    ref = c.reference(inputs, SHAPE, point, np)["c"]
    m, n, k = SHAPE["m"], SHAPE["n"], SHAPE["k"]
    a = to_float64(inputs["a"], "bfloat16").reshape(m, k)
    b = to_float64(inputs["b"], "bfloat16")
    bt = b.reshape(n, k) if layout == "nt" else b.reshape(k, n).T
    return c, inputs, ref, a, bt


def _rel(c: Gemm, out: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    got = to_float64(from_float64(out.reshape(-1), "bfloat16"), "bfloat16")
    fig = error_figures(got, ref, np)
    return fig.max_rel, fig.rel_l2


def test_registered_and_shapes() -> None:
    c = get_contract("gemm")
    assert isinstance(c, Gemm)
    for s in (*c.verify_shapes, *c.bench_shapes_full, *c.bench_shapes_quick):
        assert s["k"] % 8 == 0  # 16-byte rows
    assert c.flops({"m": 2, "n": 3, "k": 4}, {}) == 48


@pytest.mark.parametrize("layout", ["nt", "nn"])
def test_fp32_accumulation_passes(layout: str) -> None:
    c, inputs, ref, a, bt = _case(layout)
    assert c.shape_of(inputs, {"layout": layout}) == SHAPE
    out = (a.astype(np.float32) @ bt.T.astype(np.float32)).astype(np.float64)
    tol = c.tolerance["bfloat16"]
    max_rel, l2 = _rel(c, out, ref)
    assert max_rel <= tol.max_rel / 2 and l2 <= tol.rel_l2 / 2


def test_bugs_fail() -> None:
    c, _, ref, a, bt = _case("nt")
    tol = c.tolerance["bfloat16"]
    k = SHAPE["k"]
    bugs = {
        "ragged k tail dropped": a[:, : k - 8] @ bt[:, : k - 8].T,
        "k tile of 16 lost": a[:, 16:] @ bt[:, 16:].T,
        "rows of B swapped": a @ np.roll(bt, 1, axis=0).T,
    }
    for name, out in bugs.items():
        max_rel, _ = _rel(c, out, ref)
        assert max_rel > tol.max_rel, name


# The split count of gemm/split-k is one expression written three times (scratch count, grid.y, the
# sum's argument): the launch language has no named values. These shapes are the regime it is for.
SPLIT_K_SHAPES = [{"m": m, "n": n, "k": k} for m in (1, 16, 64, 128, 256, 512)
                  for n, k in ((4096, 4096), (4096, 14336), (14336, 4096))] + [{"m": 257, "n": 263, "k": 264},
                                                                             {"m": 1, "n": 8, "k": 8}]


def test_split_k_plan_splits_agree_and_fill_one_wave() -> None:
    from epldb.launch import ScalarArg, contract_arrays, plan_env, resolve_plan
    from epldb.launch.domain import in_domain
    from repository import repository_catalog

    r = repository_catalog().realizations["gemm/split-k"]
    arrays = contract_arrays(get_contract("gemm"))
    served = 0
    for point in r.points():
        slots = point["sms"] * (233472 // (point["stages"] * (128 + point["bn"]) * 128 + 8 * point["stages"] + 1024))
        for shape in SPLIT_K_SHAPES:
            if not in_domain(r, shape, point):
                continue
            served += 1
            plan = resolve_plan(r, plan_env(shape, point), arrays)
            assert plan.ok, [p.message for p in plan.problems]
            partials, total = plan.steps
            tiles, splits, _ = partials.grid
            (scratch,) = plan.scratch
            assert tiles == -(-shape["m"] // 128) * -(-shape["n"] // point["bn"])
            assert 2 <= splits <= 8 and 2 * tiles <= slots  # the domain: at least half the slots idle unsplit
            assert splits == 2 or tiles * splits <= slots  # more than 2 only while one wave holds them
            assert scratch.count == splits * shape["m"] * shape["n"]
            assert total.args[-1] == ScalarArg(splits, total.args[-1].text)
    assert served >= 40


def test_the_sweep_fills_the_output_sizes_between_the_bench_rows() -> None:
    from epldb.contracts.gemm import Gemm

    bench = {str(s) for s in Gemm.bench_shapes_full}
    sweep = Gemm.sweep_shapes
    assert sweep and not {str(s) for s in sweep} & bench
    # every m the linear layers name, and the octaves between the bench's 128, 512 and 4096
    assert {s["m"] for s in sweep} | {s["m"] for s in Gemm.bench_shapes_full} >= {1, 16, 64, 128, 256, 512, 1024, 2048,
                                                                                 4096, 16384}
    assert all(s["k"] % 8 == 0 and s["n"] % 8 == 0 for s in sweep)  # both layouts serve them
