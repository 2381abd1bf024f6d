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
