"""epldb.run: target choice and parameter points on the CPU; real runs on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

import epldb
from repository import repository_catalog
from epldb.contracts import get_contract, make_rng
from epldb.launch import ArrayArg, ResolvedPlan, ResolvedStep, ScalarArg
from epldb.launch import plan_env
from epldb.launch.domain import outside_domain, shapes_for_point
from epldb.device import DeviceInfo, choose_target
from epldb.runner import Launcher, RunError, resolve_point

CATALOG = repository_catalog()
RUNNABLE = [r.id for r in CATALOG.realizations.values()
            if r.launch and get_contract(CATALOG.contract_name_of(r)) is not None]


@pytest.mark.parametrize("targets, cc, expected", [
    (["sm_80", "sm_90", "sm_90a"], (9, 0), "sm_90a"),  # an exact arch-specific match wins
    (["sm_80", "sm_90"], (9, 0), "sm_90"),
    (["sm_80", "sm_86"], (8, 9), "sm_86"),  # same major, newest minor not above the device's
    (["sm_80"], (9, 0), None),  # machine code does not cross major versions
    (["sm_90a"], (10, 0), None),
    (["sm_100", "sm_100a"], (10, 0), "sm_100a"),
    (["sm_120"], (12, 0), "sm_120"),
])
def test_choose_target(targets: list[str], cc: tuple[int, int], expected: str | None) -> None:
    assert choose_target(targets, cc) == expected


def test_device_slug() -> None:
    d = DeviceInfo(0, "NVIDIA H200", (9, 0), 132, 60 << 20, 141 << 30, 227 << 10)
    assert (d.slug, d.arch, d.limits().max_shared_bytes) == ("nvidia-h200", "sm_90", 227 << 10)


def test_resolve_point_picks_the_first_point_whose_domain_serves_the_shape() -> None:
    r = CATALOG.realizations["softmax/online-registers"]
    default = resolve_point(r, {}, "float32")
    assert default == {"group": 8, "items": 8, "batch": 1, "min_block": 64, "dtype": "float32"}  # 64 columns at most
    p = resolve_point(r, {}, "float32", {"rows": 7, "cols": 4097})
    assert outside_domain(r, plan_env({"rows": 7, "cols": 4097}, p)) is None and p["dtype"] == "float32"
    assert p["group"] * p["items"] >= 4097
    # a given parameter is kept even when no point with it serves the shape (prepare then says why)
    assert resolve_point(r, {"group": 8}, "float32", {"rows": 7, "cols": 4097})["group"] == 8


def test_resolve_point_defaults_dtype_and_checks_values() -> None:
    r = CATALOG.realizations["block-reduce/warp-shuffle"]
    p = resolve_point(r, {"block": 512}, "bfloat16")
    assert p == {"block": 512, "items": r.params["items"][0], "dtype": "bfloat16", "op": "sum"}
    with pytest.raises(RunError, match=r"block=100 is not in the declared values"):
        resolve_point(r, {"block": 100}, "float32")
    with pytest.raises(RunError, match="has no parameter"):
        resolve_point(r, {"threads": 128}, "float32")


def test_bind_passes_integers_as_int32_and_float_scalars_as_float32() -> None:
    """The argument tuple a launch gets, without a GPU: a stand-in function records it."""
    args = (ArrayArg("x", "input"), ScalarArg(7, "rows"), ScalarArg(1e-5, "eps", "float32"))
    plan = ResolvedPlan("row-norm/one-block", {}, steps=(ResolvedStep(0, "main", (7, 1, 1), (128, 1, 1), 0, None, args),))
    seen: list[tuple] = []

    def function(grid: tuple, block: tuple, kernel_args: tuple, shared_mem: int) -> None:
        seen.append((grid, block, kernel_args, shared_mem))

    x = np.zeros(7, np.float32)
    Launcher(None, {"rows": 7}, {}, plan, [function]).launch({"x": x}, scratch={})  # type: ignore[arg-type]
    ((grid, block, (got_x, rows, eps), shared),) = seen
    assert (grid, block, shared) == ((7, 1, 1), (128, 1, 1), 0) and got_x is x
    assert type(rows) is np.int32 and rows == 7
    assert type(eps) is np.float32 and eps == np.float32(1e-5)


class _DeviceArray:
    """A stand-in with a device address, as the CUDA array interface gives one."""

    def __init__(self, address: int) -> None:
        self.__cuda_array_interface__ = {"data": (address, False), "shape": (1,), "typestr": "<f4", "version": 3}


def test_a_step_falls_back_to_its_unaligned_entry_when_an_array_is_misaligned() -> None:
    step = ResolvedStep(0, "rows", (1, 1, 1), (32, 1, 1), 0, None, (ArrayArg("x", "input"), ArrayArg("y", "output")),
                        unaligned_entry="rows_unaligned")
    plan = ResolvedPlan("op/r", {}, steps=(step,))
    launched: list[str] = []

    def entry(name: str):
        return lambda grid, block, args, shared_mem=0: launched.append(name)

    launcher = Launcher(None, {}, {}, plan, [entry("rows")], [entry("rows_unaligned")])  # type: ignore[arg-type]
    launcher.launch({"x": _DeviceArray(1 << 20), "y": _DeviceArray((1 << 20) + 256)}, scratch={})
    launcher.launch({"x": _DeviceArray((1 << 20) + 4), "y": _DeviceArray(1 << 20)}, scratch={})  # one float past
    assert launched == ["rows", "rows_unaligned"]
    # Without an unaligned entry the step's own entry runs whatever the addresses.
    Launcher(None, {}, {}, plan, [entry("rows")]).launch({"x": _DeviceArray(2), "y": _DeviceArray(2)}, scratch={})  # type: ignore[arg-type]
    assert launched[-1] == "rows"


def test_a_step_takes_its_split_entry_for_arrays_at_one_offset_mod_16() -> None:
    step = ResolvedStep(0, "rows", (1, 1, 1), (32, 1, 1), 0, None, (ArrayArg("x", "input"), ArrayArg("y", "output")),
                        unaligned_entry="rows_unaligned", split_entry="rows_split")
    plan = ResolvedPlan("op/r", {}, steps=(step,))
    launched: list[str] = []

    def entry(name: str):
        return lambda grid, block, args, shared_mem=0: launched.append(name)

    launcher = Launcher(None, {}, {}, plan, [entry("rows")], [entry("rows_unaligned")],  # type: ignore[arg-type]
                        [entry("rows_split")])
    base = 1 << 20
    for x, y in ((base, base + 256), (base + 4, base + 260), (base + 4, base)):
        launcher.launch({"x": _DeviceArray(x), "y": _DeviceArray(y)}, scratch={})
    assert launched == ["rows", "rows_split", "rows_unaligned"]


def test_prebuild_compiles_each_selected_realization_once_for_the_device_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """verify and bench build every selected realization side by side before their sequential loop."""
    import epldb.runner
    import epldb.validate_deep

    built: list[tuple[str, str]] = []
    monkeypatch.setattr(epldb.runner, "device_info", lambda: DeviceInfo(0, "NVIDIA H200", (9, 0), 132, 60 << 20, 141 << 30, 227 << 10))
    monkeypatch.setattr(epldb.validate_deep, "compile_all", lambda root, jobs: built.extend((r.id, t) for r, t in jobs))
    ids = ["softmax/online-registers", "block-reduce/warp-shuffle", "softmax/online-registers", "no/such-realization"]
    epldb.runner.prebuild(CATALOG, ids)
    expected = [(rid, choose_target(CATALOG.realizations[rid].targets, (9, 0))) for rid in ids[:2]]
    assert built == expected and all(t is not None for _, t in built)
    # a device no declared target runs on builds nothing (load_realization says why, per row)
    built.clear()
    monkeypatch.setattr(epldb.runner, "device_info", lambda: DeviceInfo(0, "old", (7, 0), 80, 6 << 20, 16 << 30, 96 << 10))
    epldb.runner.prebuild(CATALOG, ids)
    assert built == []


def _run_cases() -> list[tuple[str, str, str | None]]:
    """(realization, dtype, op) for every declared float dtype and op of every runnable realization."""
    cases = []
    for rid in RUNNABLE:
        r = CATALOG.realizations[rid]
        for dtype in (d for d in r.params.get("dtype", ("float32",)) if d in ("float32", "bfloat16")):
            for op in r.params.get("op", (None,)):
                cases.append((rid, str(dtype), op))
    return cases


def _elements(shape: dict[str, int]) -> int:
    count = 1
    for value in shape.values():
        count *= value
    return count


@pytest.mark.gpu
@pytest.mark.parametrize(("rid", "dtype", "op"), _run_cases(), ids=lambda v: str(v))
def test_run_matches_reference(rid: str, dtype: str, op: str | None) -> None:
    """epldb.run, as a user calls it, on the contract's inputs at a modest odd shape."""
    import cupy

    from epldb.contracts.dtypes import to_float64
    from epldb.verify import error_figures

    r = CATALOG.realizations[rid]
    contract = get_contract(CATALOG.contract_name_of(r))
    params = {"op": op} if op is not None else {}
    # the contract's shapes as verify fits them to each point (a kernel built for one column count
    # serves none as they are)
    served = [s for p in r.points() if p.get("dtype", dtype) == dtype
              for s in shapes_for_point(r, p, contract.verify_shapes) if _elements(s) > 1000]
    shape = min(served, key=_elements)
    point = resolve_point(r, params, dtype, shape)  # the first point whose domain serves the shape
    host = contract.make_inputs(dict(shape), dtype, point, make_rng(np, 7))
    out = epldb_run(rid, *(cupy.asarray(host[n]) for n in contract.input_names), dtype=dtype, **params)
    outs = out if isinstance(out, tuple) else (out,)
    ref = contract.reference(host, dict(shape), point)
    tol = contract.tolerance_for(point)
    for spec, got in zip(contract.outputs(dict(shape), point), outs, strict=True):
        assert got.size == spec.count
        fig = error_figures(cupy.asnumpy(to_float64(got, spec.dtype, cupy)), ref[spec.name])
        if fig.nan or fig.max_rel > tol.max_rel:
            if r.status == "draft":
                pytest.xfail(f"draft: '{spec.name}' error {fig.max_rel:.3g}, {fig.nan} non-finite")
        assert fig.nan == 0 and fig.max_rel <= tol.max_rel, (spec.name, fig, tol)


@pytest.mark.gpu
def test_run_accepts_torch_bfloat16_tensors() -> None:
    torch = pytest.importorskip("torch")
    x = torch.randn(4097, device="cuda").to(torch.bfloat16)
    out = epldb_run(RUNNABLE[0], x, block=128, op="sum")
    tile = 128 * CATALOG.realizations[RUNNABLE[0]].params["items"][0]
    expected = torch.nn.functional.pad(x.float(), (0, -x.numel() % tile)).view(-1, tile).sum(1)
    np.testing.assert_allclose(np.asarray(out.get()), expected.cpu().numpy(), rtol=1e-5, atol=1e-4)


def epldb_run(*args, **kwargs):
    from epldb.runner import run

    return run(*args, catalog=CATALOG, **kwargs)
