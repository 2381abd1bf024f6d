"""bench()'s passes on the CPU: a fake contract, fake realizations and a fake device (NumPy arrays,
a timer that runs each call once and logs it), so that the order of measurement and the rows come
out checked without a GPU."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import epldb.bench as bench_module
from epldb.bench import BenchDevice, BenchItem, Ceiling, Timing, bench
from epldb.contracts import ArraySpec, Contract, Peer, Tolerance
from epldb.evidence import Row
from epldb.runner import RunError

MiB = 1 << 20


class FakeSum(Contract):
    """The sum of ``n`` values, said to move ``n`` MiB (so n=128 has a size-matched reference and
    n=16 none)."""

    name = "fake-sum"
    summary = "sum"
    shape_vars = ("n",)
    input_names = ("x",)
    output_names = ("total",)
    verify_shapes = ({"n": 16},)
    bench_shapes_full = ({"n": 16}, {"n": 128})
    bench_shapes_quick = bench_shapes_full
    tolerance = {"float32": Tolerance(1e-5, 1e-5), "float64": Tolerance(1e-12, 1e-12)}

    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    def inputs(self, shape: dict[str, int], point: Any) -> list[ArraySpec]:
        return [ArraySpec("x", self.dtype_of(point), shape["n"])]

    def outputs(self, shape: dict[str, int], point: Any) -> list[ArraySpec]:
        return [ArraySpec("total", self.dtype_of(point), 1)]

    def shape_of(self, arrays: Any, point: Any) -> dict[str, int]:
        return {"n": int(arrays["x"].size)}

    def make_inputs(self, shape: dict[str, int], dtype: str, point: Any, rng: Any, xp: Any = np) -> dict[str, Any]:
        return {"x": (rng.random(shape["n"]) + 1.0).astype(dtype)}

    def reference(self, inputs: Any, shape: dict[str, int], point: Any, xp: Any = np) -> dict[str, Any]:
        self.log.append(("reference", self.dtype_of(point), shape["n"]))
        return {"total": xp.asarray([inputs["x"].astype(np.float64).sum()])}

    def bytes_moved(self, shape: dict[str, int], point: Any) -> int:
        return shape["n"] * MiB

    def flops(self, shape: dict[str, int], point: Any) -> int:
        return shape["n"]

    def peer_params(self, point: Any) -> dict[str, Any]:
        return {"dtype": self.dtype_of(point)}

    def peers(self) -> tuple[Peer, ...]:
        def eager(contract: Contract, shape: dict[str, int], point: Any) -> Any:
            def call(arrays: Any) -> dict[str, Any]:
                self.log.append(("peer", "eager", shape["n"]))
                return {"total": np.asarray([arrays["x"].sum()])}
            return call

        return (Peer("eager", "NumPy", eager), Peer("torch-compile", "compiled", eager),
                Peer("absent", "not here", lambda c, s, p: "not installed"))


class FakeRuntime:
    """load_realization and prepare for three realizations of FakeSum: 'fake/a' sums right,
    'fake/wrong' adds one, 'fake/broken' does not compile."""

    def __init__(self, contract: FakeSum) -> None:
        self.contract = contract

    def loaded(self, rid: str) -> Any:
        return SimpleNamespace(realization=SimpleNamespace(id=rid, launch=None), contract=self.contract,
                               build=SimpleNamespace(target="sm_90", nvrtc_version="12.4", source_hash="h-" + rid))

    def load_realization(self, catalog: Any, rid: str) -> Any:
        if rid == "fake/broken":
            raise RunError("compile-error", "does not compile")
        return self.loaded(rid)

    def prepare(self, catalog: Any, rid: str, shape: dict[str, int], point: dict[str, Any]) -> Any:
        log, dtype = self.contract.log, self.contract.dtype_of(point)

        def bind(arrays: dict[str, Any]) -> Callable[[], None]:
            def launch() -> None:
                log.append(("launch", rid, point["unroll"], dtype, shape["n"]))
                arrays["total"][0] = arrays["x"].sum() + (1 if rid == "fake/wrong" else 0)
            return launch

        return SimpleNamespace(allocate_outputs=lambda: {"total": np.zeros(1, dtype)}, bind=bind,
                               plan=SimpleNamespace(steps=()))


def fake_device(log: list[tuple[Any, ...]]) -> BenchDevice:
    """NumPy for CuPy; an L2 of 32 bytes, so n=16 float32 rotates two input sets and n=128 one."""

    def timer(calls: Sequence[Callable[[], Any]]) -> Timing:
        log.append(("time", len(calls)))
        for call in calls:
            call()
        return Timing(1.0, 0.9, 1.1, len(calls))

    def read_at_size(moved: int, sets: int) -> Ceiling:
        log.append(("at-size", moved, sets))
        return Ceiling("read-at-size", 100.0, Timing(2.0, 1.9, 2.1, 20), moved, "fake read")

    return BenchDevice(np, 32, timer, {"read": read_at_size}, lambda: None, lambda: log.append(("free",)))


ITEMS = [BenchItem("fake/broken", [{"dtype": "float32", "unroll": 1}]),
         BenchItem("fake/a", [{"dtype": "float32", "unroll": 1}, {"dtype": "float32", "unroll": 2},
                              {"dtype": "float64", "unroll": 1}]),
         BenchItem("fake/wrong", [{"dtype": "float32", "unroll": 1}])]


def run_fake(monkeypatch: pytest.MonkeyPatch, skip: Callable[[Row], bool] | None = None
             ) -> tuple[list[Row], list[Row], list[tuple[Any, ...]]]:
    log: list[tuple[Any, ...]] = []
    runtime = FakeRuntime(FakeSum(log))
    monkeypatch.setattr(bench_module, "load_realization", runtime.load_realization)
    monkeypatch.setattr(bench_module, "prepare", runtime.prepare)
    catalog = SimpleNamespace(realizations={i.realization_id: SimpleNamespace(id=i.realization_id) for i in ITEMS})
    emitted: list[Row] = []
    rows = bench(catalog, ITEMS, quick=True, ceilings={"read": 200.0}, skip=skip, emit=emitted.append,  # type: ignore[arg-type]
                 device=fake_device(log))
    return rows, emitted, log


def summary(rows: list[Row]) -> list[tuple[Any, ...]]:
    return [(r.subject, r.params.get("unroll"), r.dtype, r.shape.get("n", r.shape.get("bytes")), r.status) for r in rows]


def test_passes_run_shape_by_shape_ceiling_realizations_then_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    rows, emitted, log = run_fake(monkeypatch)
    assert emitted == rows

    def peers(dtype: str, n: int) -> list[tuple[Any, ...]]:
        return [("fake-sum/eager", None, dtype, n, "passed"), ("fake-sum/torch-compile", None, dtype, n, "skipped"),
                ("fake-sum/absent", None, dtype, n, "skipped")]

    assert summary(rows) == [
        ("fake/broken", 1, "float32", None, "compile-error"),
        ("fake/a", 1, "float32", 16, "passed"), ("fake/a", 2, "float32", 16, "passed"),
        ("fake/wrong", 1, "float32", 16, "incorrect"), *peers("float32", 16),
        ("ceiling/read-at-size", None, "", 128 * MiB, "passed"),  # once a run: float64 moves as much
        ("fake/a", 1, "float32", 128, "passed"), ("fake/a", 2, "float32", 128, "passed"),
        ("fake/wrong", 1, "float32", 128, "incorrect"), *peers("float32", 128),
        ("fake/a", 1, "float64", 16, "passed"), *peers("float64", 16),
        ("fake/a", 1, "float64", 128, "passed"), *peers("float64", 128),
    ]
    # Each shape: the size-matched reference before the realizations; each realization checked on
    # one launch (the float64 reference computed at the first check of the problem) and then timed
    # on every input set; the peers last; the memory released before the next shape.
    def realization(rid: str, unroll: int, n: int, sets: int) -> list[tuple[Any, ...]]:
        return [("launch", rid, unroll, "float32", n), ("time", sets), *[("launch", rid, unroll, "float32", n)] * sets]

    a1 = realization("fake/a", 1, 16, 2)
    at_16 = [a1[0], ("reference", "float32", 16), *a1[1:], *realization("fake/a", 2, 16, 2),
             *realization("fake/wrong", 1, 16, 2), ("peer", "eager", 16), ("time", 2), ("peer", "eager", 16),
             ("peer", "eager", 16), ("free",)]
    assert log[:len(at_16)] == at_16
    assert log[len(at_16):len(at_16) + 3] == [("at-size", 128 * MiB, 1), ("launch", "fake/a", 1, "float32", 128),
                                               ("reference", "float32", 128)]
    assert log.count(("free",)) == 4 and [e for e in log if e[0] == "at-size"] == [("at-size", 128 * MiB, 1)]

    by = {(r.subject, r.params.get("unroll"), r.dtype, r.shape.get("n")): r for r in rows}
    ceiling = by[("ceiling/read-at-size", None, "", None)]
    assert ceiling.frac_ceiling == pytest.approx(0.5) and ceiling.detail.endswith("fraction of the run's read ceiling")
    a = by[("fake/a", 1, "float32", 16)]
    assert a.gbps == pytest.approx(16 * MiB / 1e-3 / 1e9) and a.frac_ceiling == pytest.approx(a.gbps / 200.0)
    assert a.detail == "2 input set(s) rotated, 0 MiB working set; 2 reps" and a.source_hash == "h-fake/a"
    assert by[("fake/wrong", 1, "float32", 16)].detail.startswith("error above tolerance; ")
    assert by[("fake-sum/torch-compile", None, "float32", 16)].detail == "not timed with --quick (compile time)"
    assert by[("fake-sum/absent", None, "float32", 16)].detail == "not installed"
    assert by[("fake-sum/eager", None, "float64", 128)].detail == "NumPy; 1 input set(s) rotated, 0 MiB working set; 1 reps"


def test_skipped_rows_are_neither_measured_nor_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    def resumed(row: Row) -> bool:
        return row.kind == "ceiling" or row.params.get("unroll") == 2 or row.subject == "fake-sum/eager"

    rows, _, log = run_fake(monkeypatch, resumed)
    assert not [r for r in rows if resumed(r)]
    assert not [e for e in log if e[0] == "at-size" or e[:2] == ("peer", "eager") or e[2:3] == (2,)]
    # the broken one; per float32 shape fake/a, fake/wrong and two peers; per float64 shape fake/a and two peers
    assert len(rows) == 1 + 2 * 4 + 2 * 3


def test_shapes_given_replace_the_bench_shapes_where_they_fit() -> None:
    from epldb.bench import shapes_for
    from epldb.contracts import get_contract

    rows, flat = get_contract("row-softmax"), get_contract("device-reduce")
    assert rows is not None and flat is not None
    assert shapes_for(rows, False) == tuple(rows.bench_shapes(False))
    given = ["8192x32001", "100003", "3x5x7"]
    assert shapes_for(rows, False, given) == ({"rows": 8192, "cols": 32001},)
    assert shapes_for(flat, False, given) == ({"n": 100003},)


def test_sweep_takes_each_contracts_own_shapes_off_the_bench_line() -> None:
    from epldb.bench import SWEEP, shapes_for
    from epldb.contracts import get_contract

    rows = get_contract("row-rmsnorm")
    assert rows is not None
    sweep = shapes_for(rows, False, SWEEP)
    assert sweep and not set(map(str, sweep)) & set(map(str, rows.bench_shapes(False)))
    assert any((s["cols"] * 2) % 16 for s in sweep), "a bf16 row that is not 16-byte aligned"
    assert any(s["rows"] < 132 for s in sweep), "fewer rows than the H200 has SMs"
