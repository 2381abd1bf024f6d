"""The dispatcher's choice cache, without a GPU: one selection per shape class (op, dtype, problem,
row length, row-count octave), reused while its point serves the shape, made again when it does not."""

from __future__ import annotations

from types import SimpleNamespace

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
