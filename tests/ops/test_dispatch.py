"""The dispatcher's choice cache, without a GPU: one selection per shape class (op, dtype, problem,
row length, row-count octave), reused while its point serves the shape, made again when it does not."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

import epldb
from epldb.launch.domain import in_domain
from epldb.ops.dispatch import Dispatcher


@pytest.fixture()
def dispatcher(monkeypatch: pytest.MonkeyPatch) -> Dispatcher:
    import epldb.device

    monkeypatch.setattr(epldb.device, "device_info", lambda: SimpleNamespace(slug="nvidia-h200"))
    return Dispatcher(epldb.load(lint=False))


def test_one_selection_serves_a_shape_class(dispatcher: Dispatcher) -> None:
    first = dispatcher.choose("rmsnorm", {"rows": 3000, "cols": 4096}, "bfloat16", {})
    again = dispatcher.choose("rmsnorm", {"rows": 4000, "cols": 4096}, "bfloat16", {})  # same octave of rows
    assert again is first and len(dispatcher.choices) == 1
    other = dispatcher.choose("rmsnorm", {"rows": 5000, "cols": 4096}, "bfloat16", {})  # the next octave
    assert len(dispatcher.choices) == 2
    r = dispatcher.catalog.realizations[other.realization]
    assert in_domain(r, {"rows": 5000, "cols": 4096}, other.point)


def test_a_cached_choice_whose_point_no_longer_serves_is_made_again(dispatcher: Dispatcher) -> None:
    choice = dispatcher.choose("softmax", {"rows": 4096, "cols": 16384}, "float32", {})
    klass = next(iter(dispatcher.choices))
    # Plant a choice that cannot serve the class's shapes: a point of a realization outside its domain.
    r = dispatcher.catalog.realizations["softmax/online-registers"]
    small = next(p for p in r.points() if p["dtype"] == "float32" and not in_domain(r, {"rows": 4096, "cols": 16384}, p))
    dispatcher.choices[klass] = type(choice)(**{**choice.as_dict(), "realization": r.id, "point": small})
    again = dispatcher.choose("softmax", {"rows": 4096, "cols": 16384}, "float32", {})
    assert in_domain(dispatcher.catalog.realizations[again.realization], {"rows": 4096, "cols": 16384}, again.point)


def test_a_selection_error_is_an_op_error(dispatcher: Dispatcher) -> None:
    from epldb.ops import OpError

    with pytest.raises(OpError, match="no verified realization for dtype 'float16'"):
        dispatcher.choose("softmax", {"rows": 8, "cols": 8}, "float16", {})


def test_the_ops_serve_the_first_device_they_meet(dispatcher: Dispatcher) -> None:
    from epldb.ops import OpError
    from epldb.ops.arrays import Array

    dispatcher.on_device(Array(None, "torch", "float32", (4,), 0, 0))
    dispatcher.on_device(Array(None, "torch", "float32", (4,), 0, 0))
    with pytest.raises(OpError, match="x is on CUDA device 1, and epldb.ops runs on one GPU a process: device 0"):
        dispatcher.on_device(Array(None, "torch", "float32", (4,), 0, 1))


def test_a_warm_call_is_one_lookup_and_one_driver_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU: a fake driver launch and a planted plan. The second call of a shape neither
    selects nor plans; it writes the pointers (and a scalar's default where the call gives none)
    into the argument block and launches once, taking the unaligned entry when a pointer is not
    16-byte aligned."""
    import ctypes

    import epldb.ops as ops
    from epldb.ops import arrays, dispatch
    from epldb.ops.arrays import Array
    from epldb.ops.dispatch import Plan, Step

    d = Dispatcher(SimpleNamespace())
    monkeypatch.setattr(dispatch, "_DISPATCHER", d)
    monkeypatch.setattr(dispatch, "stream_of", lambda like: 7)
    launches: list[tuple[Any, ...]] = []
    seen: list[tuple[int, ...]] = []

    def fake_launch(*args: Any) -> int:
        launches.append(args)
        seen.append(tuple(c.value for c in step.values[:2]) + (round(step.values[2].value, 9),))
        return 0

    monkeypatch.setattr(dispatch, "_CU_LAUNCH", fake_launch)
    names: list[str] = []
    defaults: list[tuple[str, float | int]] = []
    step = Step.make(SimpleNamespace(ptr=11), SimpleNamespace(ptr=12), (4, 1, 1), (128, 1, 1), 0,
                     (("array", "x"), ("array", "y"), ("scalar", ("eps", 1e-6)), ("value", 1000)), names, defaults)
    assert names == ["x", "y"] and defaults == [("eps", 1e-6)]
    planned: list[Any] = []
    monkeypatch.setattr(d, "plan", lambda *a: planned.append(a) or Plan(SimpleNamespace(realization="r"), (step,), (),
                                                                          tuple(names), tuple(defaults)))
    ptr = iter([4096, 8192, 4104, 8192])  # x then y, twice: the second x is 8 bytes off alignment
    # CuPy arrays (the checked path every call; PyTorch's warm path is the next test's)
    monkeypatch.setattr(ops, "inspect", lambda name, v, **kw: Array(v, "cupy", "float32", (4, 1000), next(ptr), 0))
    monkeypatch.setattr(ops, "empty", lambda like, shape, dtype: (None, next(ptr)))
    # Two calls of one shape through the public path of a map.
    monkeypatch.setattr(ops, "_rows", lambda a, dim, op: (4, 1000))
    ops.softmax(None)
    ops.softmax(None)
    assert len(planned) == 1 and len(d.warm) == 1
    assert [a[0] for a in launches] == [11, 12]  # the aligned entry, then the unaligned one
    assert launches[0][1:8] == (4, 1, 1, 128, 1, 1, 0) and launches[0][8] == 7
    assert launches[0][9] == ctypes.addressof(step.params)
    assert seen == [(4096, 8192, 1e-6), (4104, 8192, 1e-6)]
    assert arrays.SUPPORTED  # the module the fakes stand in for is the one the ops import


class _FakeTensor:
    """What the warm path reads off a PyTorch tensor, and what it asks of one."""

    def __init__(self, shape: tuple[int, ...], ptr: int, contiguous: bool = True) -> None:
        self.shape, self.dtype, self.ptr, self.contiguous = shape, "float32", ptr, contiguous

    def get_device(self) -> int:
        return 0

    def is_contiguous(self) -> bool:
        return self.contiguous

    def data_ptr(self) -> int:
        return self.ptr


def test_a_warm_pytorch_call_skips_the_checks_and_launches_its_bound_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU: fake tensors, a fake driver launch and a planted plan. The first rmsnorm call of
    a key is checked and planned; the next goes from its key (op, each tensor's dtype, shape and
    device) to the bound call: no check, no plan, the output from empty_like, the pointers in the
    plan's order and the call's own eps. A tensor of the key that is not contiguous, or of another
    shape, goes back to the checked path."""
    import epldb.ops as ops
    from epldb.ops import arrays, dispatch
    from epldb.ops.arrays import Array
    from epldb.ops.dispatch import Plan, Step

    d = Dispatcher(SimpleNamespace())
    monkeypatch.setattr(dispatch, "_DISPATCHER", d)
    monkeypatch.setattr(dispatch, "stream_of", lambda like: 7)
    monkeypatch.setattr(arrays, "TENSOR", _FakeTensor)
    fresh = iter(range(1 << 20, 1 << 21, 4096))
    monkeypatch.setattr(arrays, "_TORCH", SimpleNamespace(
        empty_like=lambda t: _FakeTensor(t.shape, next(fresh)), float32="float32",
        _C=SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 9)))
    launches: list[tuple[Any, ...]] = []

    def fake_launch(*args: Any) -> int:
        launches.append((args[8], *(c.value for c in step.values[:3]), round(step.values[3].value, 9)))
        return 0

    monkeypatch.setattr(dispatch, "_CU_LAUNCH", fake_launch)
    names: list[str] = []
    defaults: list[tuple[str, float | int]] = []
    step = Step.make(SimpleNamespace(ptr=11), None, (4, 1, 1), (128, 1, 1), 0,
                     (("array", "weight"), ("array", "x"), ("array", "y"), ("scalar", ("eps", 1e-6)), ("value", 1000)),
                     names, defaults)
    planned: list[Any] = []
    monkeypatch.setattr(d, "plan", lambda *a: planned.append(a) or Plan(SimpleNamespace(realization="r"), (step,), (),
                                                                          tuple(names), tuple(defaults)))
    checked: list[str] = []

    def inspect(name: str, v: Any, **kw: Any) -> Array:
        checked.append(name)
        return Array(v, "torch", "float32", v.shape, v.ptr, 0)

    monkeypatch.setattr(ops, "inspect", inspect)
    monkeypatch.setattr(ops, "empty", lambda like, shape, dtype: (None, 4))
    x, w = _FakeTensor((4, 1000), 4096), _FakeTensor((1000,), 65536)
    ops.rmsnorm(x, w, eps=1e-5)
    y = ops.rmsnorm(x, w, eps=1e-3)
    assert checked == ["x", "weight"] and len(planned) == 1 and len(d.calls) == 1
    assert isinstance(y, _FakeTensor) and y.shape == (4, 1000)
    # the checked launch on the generic path's stream, then the warm one on PyTorch's raw stream
    assert launches == [(7, 65536, 4096, 4, 1e-5), (9, 65536, 4096, y.ptr, 1e-3)]
    ops.rmsnorm(_FakeTensor((4, 1000), 4096, contiguous=False), w)  # checked (and refused there, on a GPU)
    ops.rmsnorm(_FakeTensor((5, 1000), 4096), w)  # another shape: checked and planned
    assert checked == ["x", "weight"] * 3 and len(planned) == 2 and len(d.calls) == 2
