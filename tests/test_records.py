"""epldb.records: what the record types derive from their fields."""

from __future__ import annotations

from repository import repository_catalog

from epldb.records import covering


def test_a_covering_sample_holds_every_value_and_nothing_else() -> None:
    space = [{"a": a, "b": b, "c": c} for a in (1, 2, 3) for b in (True, False) for c in ("x",)]
    sample = covering(space)
    assert sample[0] == space[0] and len(sample) == 3 and all(p in space for p in sample)
    assert {(k, v) for p in sample for k, v in p.items()} == {(k, v) for p in space for k, v in p.items()}
    assert covering([{}]) == [{}] and covering([]) == []
    # 1 and True are other values, though equal in Python.
    assert len(covering([{"a": 1}, {"a": True}])) == 2


def test_every_realization_samples_each_value_of_its_space_in_few_points() -> None:
    for r in repository_catalog().realizations.values():
        sample = r.points_covering()
        assert sample and all(p in r.points() for p in sample), r.id
        for name, values in r.params.items():
            assert {repr(p[name]) for p in sample} == {repr(v) for v in values}, (r.id, name)
        assert len(sample) <= max(len(v) for v in r.params.values()) + len(r.params), r.id
    where = {"dtype": ["bfloat16"]}
    r = repository_catalog().realizations["softmax/online-registers"]
    assert {p["dtype"] for p in r.points_covering(where)} == {"bfloat16"}


def _space(params_when: str | None) -> "Realization":
    from epldb.records import Realization, SourceMap

    return Realization(id="s/r", title="", file="", source=SourceMap(""), data={},
                       params={"bm": (64, 128), "bn": (128, 256), "layout": ("nt",)}, params_when=params_when)


def test_params_when_drops_the_points_where_it_is_zero() -> None:
    r = _space("233472 // (5 * (bm + bn) * 128 + 1024)")  # a 5-stage ring of (bm + bn) x 128 bytes
    assert [(p["bm"], p["bn"]) for p in r.points()] == [(64, 128), (64, 256), (128, 128)]
    assert len(r.points_crossed()) == 4 and r.points_covering() and all(p in r.points() for p in r.points_covering())
    # Without it, or when it does not parse or evaluate (lint says why), every point stays.
    assert len(_space(None).points()) == len(_space("bm +").points()) == len(_space("bm // (bn - bn)").points()) == 4


def test_the_repository_spaces_keep_every_value_of_every_parameter() -> None:
    for r in repository_catalog().realizations.values():
        for name, values in r.params.items():
            assert {repr(p[name]) for p in r.points()} == {repr(v) for v in values}, (r.id, name)
