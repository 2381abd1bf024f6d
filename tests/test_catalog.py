"""The repository's own catalog: valid, complete as the foundation promises, fast, and queryable."""

from __future__ import annotations

from pathlib import Path

import pytest

import epldb
from repository import repository_catalog
from epldb.catalog import default_root
from examples import EXAMPLES, materialize

FEATURES = {
    "reduction-summarizable", "streaming-updatable-state", "tile-locality", "rematerializable-intermediate",
    "reorder-friendly", "blockwise-decomposable", "mergeable-state",
}
PRIMITIVES = {
    "reduction": {"warp-reduce", "block-reduce", "device-reduce", "segmented-row-reduce"},
    "streaming": {"online-max-accumulation", "mergeable-statistics", "streaming-weighted-reduction",
                  "split-state-merge"},
    "tile-staging": {"shared-memory-staging", "register-double-buffering", "cp-async-multistage", "tma-bulk-copy",
                     "warp-specialized-pipeline"},
    "rematerialization": {"recompute-intermediate", "recompute-epilogue", "regenerate-instead-of-store",
                          "statistics-only-checkpoint"},
    "fusion": {"elementwise-chain-fusion", "epilogue-fusion", "accumulation-local-fusion",
               "materialization-avoidance"},
}
OPERATORS = {"softmax", "log-softmax", "logsumexp", "layernorm", "rmsnorm", "cross-entropy",
             "attention-row-statistics", "gemm", "transpose"}


@pytest.fixture(scope="module")
def catalog() -> epldb.Catalog:
    return repository_catalog()


def test_repository_catalog_has_no_errors(catalog: epldb.Catalog) -> None:
    assert [p.format() for p in catalog.problems if p.severity == "error"] == []


def test_the_seven_features(catalog: epldb.Catalog) -> None:
    assert set(catalog.features) == FEATURES


@pytest.mark.parametrize("family", sorted(PRIMITIVES))
def test_each_family_has_its_primitives(catalog: epldb.Catalog, family: str) -> None:
    assert {p.id for p in catalog.primitives_where(family=family)} == PRIMITIVES[family]


def test_the_operator_case_studies(catalog: epldb.Catalog) -> None:
    assert set(catalog.operators) == OPERATORS


def test_every_experiment_is_a_valid_record(catalog: epldb.Catalog) -> None:
    """Every experiment under catalog/experiments/ passed its schema and lint: the 42 that replaced
    the explorations/ folders and every one since, numbered from 0001 in order with no gap, each
    concerning at least one record and each of its runs stored as an experiment's evidence."""
    files = sorted((catalog.root / "catalog" / "experiments").glob("*.yaml"))
    assert len(files) == len(catalog.experiments) >= 42
    assert [e.number for e in catalog.experiments.values()] == list(range(1, len(files) + 1))
    assert not [p.format() for p in catalog.problems if p.location.file.startswith("catalog/experiments/")]
    for e in catalog.experiments.values():
        assert e.verdict in ("adopted", "rejected", "open") and e.concerns, e.id
        for run in e.evidence:
            assert list((catalog.root / "evidence").glob(f"*/experiments/{run}.*")), (e.id, run)
    assert not (catalog.root / "explorations").exists()


def test_experiments_concerning(catalog: epldb.Catalog) -> None:
    """The experiments naming a record, in number order; for a subject, with ``realizations=True``,
    also those naming one of its realizations."""
    exact = catalog.experiments_concerning("rmsnorm/staged-pipelined")
    assert exact and all("rmsnorm/staged-pipelined" in e.concerns for e in exact)
    assert [e.id for e in exact] == sorted(e.id for e in exact)
    subject = catalog.experiments_concerning("rmsnorm", realizations=True)
    assert set(exact) <= set(subject) and set(catalog.experiments_concerning("rmsnorm")) <= set(subject)
    assert catalog.experiments_concerning("no-such-record") == []
    assert catalog.get("0013-cluster-exchange") is catalog.experiments["0013-cluster-exchange"]


def test_every_primitive_says_what_it_relies_on_and_trades(catalog: epldb.Catalog) -> None:
    for p in catalog.primitives.values():
        assert p.properties and p.costs and p.features, p.id
        assert p.operators or p.also_in, f"{p.id} names no operator it appears in"


def test_a_load_leaves_the_launch_plan_resolution_to_validate(tmp_path: Path) -> None:
    """Loading runs only the cheap rules; the launch-plan rule (every plan at every point and shape)
    is validate's. How long each takes is reported by tools/bench_load.py, never asserted here."""
    root = materialize(EXAMPLES / "negative" / "launch-plan-bad-expression", tmp_path)
    assert not [p for p in epldb.load(root).problems if p.rule == "launch-plan"]
    assert [p for p in epldb.validate(root).problems if p.rule == "launch-plan"]


def test_default_root_is_this_repository(catalog: epldb.Catalog) -> None:
    assert catalog.root == default_root() and (catalog.root / "catalog" / "schema").is_dir()


def test_queries(catalog: epldb.Catalog) -> None:
    assert {r.primitive for r in catalog.realizations_of("block-reduce")} <= {"block-reduce"}
    for r in catalog.realizations_where(family="reduction"):
        assert "reduction" in catalog.families_of(r)
    for p in catalog.primitives_where(feature="mergeable-state"):
        assert "mergeable-state" in p.features
    for o in catalog.operators_using("online-max-accumulation"):
        assert "online-max-accumulation" in o.primitives
    assert catalog.get("block-reduce") is catalog.primitives["block-reduce"]
    assert catalog.get("no-such-thing") is None


def test_realization_points_are_the_cross_product_less_params_when(catalog: epldb.Catalog) -> None:
    for r in catalog.realizations.values():
        expected = 1
        for values in r.params.values():
            expected *= len(values)
        assert len(r.points_crossed()) == expected
        if r.params_when is None:
            assert r.points() == r.points_crossed()
        else:  # a strict subset, in the cross product's order
            kept = r.points()
            assert 0 < len(kept) < expected and kept == [p for p in r.points_crossed() if p in kept]


def test_points_where_names_values_as_the_records_spell_them(catalog: epldb.Catalog) -> None:
    for r in catalog.realizations.values():
        for name, values in r.params.items():
            for value in values:
                text = ("true" if value else "false") if isinstance(value, bool) else str(value)
                chosen = r.points_where({name: [text]})
                assert chosen and all(p[name] == value for p in chosen), (r.id, name, text)


def test_point_text_spells_values_as_records_do() -> None:
    from epldb.records import point_text

    assert point_text({"group": 256, "target_ahead": True, "dtype": "bfloat16"}) == "group=256 target_ahead=true dtype=bfloat16"
    assert point_text({"shift": False}, sep=", ") == "shift=false"
    assert point_text({}, empty="-") == "-"
