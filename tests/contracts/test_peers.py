"""Every contract's peers (epldb/contracts/peers.py): on the CPU, unique names and a reason instead
of an exception where CuPy or PyTorch is missing; on the GPU, outputs within the contract's
tolerance of its float64 reference, so that a fast but wrong peer cannot be timed as a rival.

The cases are generated from the registry and the catalog, never listed by hand: per contract
that a realization uses, each peer x dtype (float32, bfloat16, and int32 where the contract has a
tolerance for it) x op (the string values of ``op`` in the catalog's realizations of the contract,
if any), at the smallest verify shape of more than 1000 elements, at the first point of the first
realization in the catalog whose primitive uses the contract (dtype and op replaced).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import dataclass
from typing import Any

import pytest

import epldb
from repository import repository_catalog
from epldb.contracts import REGISTRY, get_contract, make_rng
from epldb.contracts.base import Contract, Peer, Shape
from epldb.contracts.dtypes import storage_dtype, to_float64
from epldb.verify import error_figures

CATALOG = repository_catalog()
DTYPES = ("float32", "bfloat16", "int32")
#: Below this many elements a reduction hides too little for a wrong peer to show.
MIN_ELEMENTS = 1000


@dataclass(frozen=True)
class PeerCase:
    contract: str
    peer: str
    shape: Shape
    point: dict[str, Any]

    @property
    def id(self) -> str:
        return "-".join([f"{self.contract}/{self.peer}", self.point["dtype"], *([self.point["op"]] if "op" in self.point else [])])

    def resolve(self) -> tuple[Contract, Peer]:
        contract = get_contract(self.contract)
        assert contract is not None
        (peer,) = [p for p in contract.peers() if p.name == self.peer]
        return contract, peer


def _elements(shape: Shape) -> int:
    return math.prod(shape.values())


def _realizations_of(contract: str) -> list[Any]:
    return [r for r in CATALOG.realizations.values() if CATALOG.contract_name_of(r) == contract]


def peer_cases() -> list[PeerCase]:
    """The cases of every contract some realization uses (peers are timed beside realizations)."""
    cases: list[PeerCase] = []
    for name in sorted(REGISTRY):
        contract, realizations = get_contract(name), _realizations_of(name)
        assert contract is not None
        if not realizations:
            continue
        base = realizations[0].points()[0]
        ops = sorted({op for r in realizations for op in r.params.get("op", ()) if isinstance(op, str)})
        shape = min((s for s in contract.verify_shapes if _elements(s) > MIN_ELEMENTS), key=_elements)
        for peer in contract.peers():
            for dtype in (d for d in DTYPES if d in contract.tolerance):
                for op in ops or [None]:  # a contract without an op parameter: one case per dtype
                    point = {**base, "dtype": dtype, **({"op": op} if op else {})}
                    cases.append(PeerCase(name, peer.name, dict(shape), point))
    return cases


CASES = peer_cases()


def test_cases_cover_every_peer_of_every_contract_in_use() -> None:
    in_use = {name for name in REGISTRY if _realizations_of(name)}
    assert {c.contract for c in CASES} == in_use
    for name in in_use:
        mine = [c for c in CASES if c.contract == name]
        assert {c.peer for c in mine} == {p.name for p in get_contract(name).peers()}
        if "float32" in get_contract(name).tolerance:  # gemm is bfloat16 alone
            assert "float32" in {c.point["dtype"] for c in mine}
    # The reductions: both ops and both float dtypes, and warp-tile-reduce's int32.
    for name in ("block-tile-reduce", "device-reduce", "row-reduce", "warp-tile-reduce"):
        keys = {(c.point["dtype"], c.point["op"]) for c in CASES if c.contract == name}
        assert keys >= {(d, op) for d in ("float32", "bfloat16") for op in ("sum", "max")}, name
    assert {c.point["op"] for c in CASES if c.contract == "warp-tile-reduce" and c.point["dtype"] == "int32"} == {
        "sum", "max"}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_peer_names_are_unique_within_a_contract(name: str) -> None:
    # Rows are "<contract>/<peer name>": two peers of one name would mix their evidence.
    names = [p.name for p in get_contract(name).peers()]
    assert len(set(names)) == len(names), names


@pytest.mark.parametrize("absent", [("cupy",), ("torch",), ("cupy", "torch"), ("liger_kernel",), ("quack",)],
                         ids="+".join)
def test_prepare_says_what_is_missing_instead_of_raising(absent: tuple[str, ...],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for module in absent:
        monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    packages = {"liger-kernel": "liger_kernel", "quack": "quack"}  # peer -> the package it needs
    # patched or not installed
    missing = {m for m in ("cupy", "torch", *packages.values()) if importlib.util.find_spec(m) is None}
    reasons = {f"not installed: {m}" for m in missing}
    for case in CASES:
        contract, peer = case.resolve()
        prepared = peer.prepare(contract, dict(case.shape), case.point)
        # Every peer needs CuPy; the torch peers need PyTorch too, a package's peer PyTorch and itself.
        uses_torch = case.peer.startswith("torch") or case.peer in packages
        if ("cupy" in missing or ("torch" in missing and uses_torch)
                or (case.peer in packages and packages[case.peer] in missing)):
            assert prepared in reasons, (case.id, prepared)


def test_the_gemm_compile_peer_autotunes_over_triton_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # The options reach torch.compile, and one wrapper serves every call of a (function, options).
    import types

    from epldb.contracts import peers

    seen: list[dict[str, Any]] = []

    def compile(fn: Any, dynamic: bool, options: dict[str, Any] | None) -> Any:  # noqa: A001 - torch's name
        seen.append({"fn": fn, "dynamic": dynamic, "options": options})
        return fn

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(compile=compile))
    monkeypatch.setattr(peers, "_COMPILED", {})
    (peer,) = [p for p in get_contract("gemm").peers() if p.name == peers.TORCH_COMPILE]
    assert "max-autotune" in peer.title
    fn = object()
    for _ in range(2):
        peers._compiled(fn, False, peers.MAX_AUTOTUNE_TRITON)
    peers._compiled(fn, False)
    tuned = {"max_autotune": True, "max_autotune_gemm_backends": "TRITON", "triton.cudagraphs": False}
    assert seen == [{"fn": fn, "dynamic": False, "options": tuned}, {"fn": fn, "dynamic": False, "options": None}]


# --- GPU ---------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_peer_output_is_within_tolerance_of_the_reference(case: PeerCase) -> None:
    import cupy

    contract, peer = case.resolve()
    shape, point = dict(case.shape), case.point
    dtype = contract.dtype_of(point)
    inputs = contract.make_inputs(shape, dtype, point, make_rng(cupy, 20_251), cupy)
    prepared = peer.prepare(contract, shape, point)
    if isinstance(prepared, str):
        pytest.skip(prepared)
    outputs = prepared(inputs)
    cupy.cuda.get_current_stream().synchronize()
    ref = contract.reference(inputs, shape, point, cupy)
    tol = contract.tolerance_for(point, peer)
    for spec in contract.outputs(shape, point):
        got = outputs[spec.name]
        assert got.dtype == storage_dtype(spec.dtype) and got.size == spec.count, (spec, got.dtype, got.shape)
        fig = error_figures(to_float64(got, spec.dtype, cupy), ref[spec.name], cupy)
        assert fig.nan == 0, f"{fig.nan} non-finite value(s) in '{spec.name}', first at [{fig.first_bad}]"
        assert fig.max_rel <= tol.max_rel and fig.rel_l2 <= tol.rel_l2, (spec.name, fig, tol)


@pytest.mark.gpu
def test_outputs_converted_on_read_nan_conventions_and_bfloat16_widening() -> None:
    import cupy

    from epldb.contracts.peers import as_float32, nan_as

    f32 = cupy.array([1.0, math.nan, -2.0], cupy.float32)
    assert nan_as(-math.inf)(f32).tolist() == [1.0, -math.inf, -2.0]
    assert nan_as(0.0)(f32).tolist() == [1.0, 0.0, -2.0]
    bf16 = cupy.array([0x3F80, 0x7FC0, 0xC000, 0xFF80], cupy.uint16)  # 1, NaN, -2, -inf
    assert nan_as(-math.inf)(bf16).tolist() == [0x3F80, 0xFF80, 0xC000, 0xFF80]
    assert nan_as(0.0)(bf16).tolist() == [0x3F80, 0, 0xC000, 0xFF80]
    widened = as_float32(bf16)
    assert widened.dtype == cupy.float32 and widened[[0, 2, 3]].tolist() == [1.0, -2.0, -math.inf]
    assert bool(cupy.isnan(widened[1]))
    assert as_float32(f32) is f32


def test_a_package_that_fails_while_importing_is_a_skip_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # A package's own import may fail for reasons other than absence (its CUDA libraries, its DSL):
    # the peer's row is skipped with the reason, and the bench goes on.
    import importlib as imp

    from epldb.contracts import peers

    real = imp.import_module

    def import_module(name: str, *args: Any) -> Any:
        if name == "quack":
            raise RuntimeError("no CUDA driver")
        return real(name, *args)

    monkeypatch.setattr(peers.importlib, "import_module", import_module)
    contract = get_contract("row-softmax")
    (quack,) = [p for p in contract.peers() if p.name == peers.QUACK]
    assert quack.prepare(contract, {"rows": 4, "cols": 1000}, {"dtype": "float32"}) == (
        "quack failed to import: RuntimeError: no CUDA driver")
