"""Operator realizations: a realization's subject is a primitive or an operator, and every lookup
(realizations_of, the filters, the contract) goes through the subject. Checked on the loader's
fixture with the positive example 'operator-realization' laid over it."""

from __future__ import annotations

from pathlib import Path

import pytest

import epldb
from epldb.runner import RunError, contract_of
from examples import EXAMPLES, materialize


@pytest.fixture()
def catalog(tmp_path: Path) -> epldb.Catalog:
    cat = epldb.load(materialize(EXAMPLES / "positive" / "operator-realization", tmp_path))
    assert cat.problems == []
    return cat


def _with_contracts(root: Path, *, primitive: str | None, operator: str | None) -> epldb.Catalog:
    """The fixture with ``contract:`` added to its primitive and/or operator."""
    for path, contract in ((root / "catalog/primitives/reduction/tile-sum.yaml", primitive),
                           (root / "catalog/operators/total.yaml", operator)):
        if contract is not None:
            path.write_text(path.read_text() + f"contract: {contract}\n")
    return epldb.load(root)


def test_subject_of_a_primitive_and_an_operator_realization(catalog: epldb.Catalog) -> None:
    naive, composed = catalog.realizations["tile-sum/naive"], catalog.realizations["total/two-stage"]
    assert (naive.primitive, naive.operator, naive.subject, naive.subject_kind) == ("tile-sum", None, "tile-sum",
                                                                                    "primitive")
    assert (composed.primitive, composed.operator, composed.subject, composed.subject_kind) == (
        None, "total", "total", "operator")
    assert composed.name == "two-stage" and composed.composes == ("tile-sum/naive", "tile-sum")
    assert catalog.subject_of(naive) is catalog.primitives["tile-sum"]
    assert catalog.subject_of(composed) is catalog.operators["total"]


def test_realizations_of_takes_a_primitive_or_an_operator(catalog: epldb.Catalog) -> None:
    assert [r.id for r in catalog.realizations_of("tile-sum")] == ["tile-sum/naive"]
    assert [r.id for r in catalog.realizations_of("total")] == ["total/two-stage"]
    assert catalog.realizations_of("no-such-subject") == []


def test_filters_place_an_operator_realization_by_its_operator(catalog: epldb.Catalog) -> None:
    composed = catalog.realizations["total/two-stage"]
    # The families of the operator's decomposition, the features the operator shows.
    assert catalog.families_of(composed) == {"reduction"}
    assert catalog.features_of(composed) == {"sums"}
    both = ["tile-sum/naive", "total/two-stage"]
    assert [r.id for r in catalog.realizations_where(family="reduction")] == both
    assert [r.id for r in catalog.realizations_where(feature="sums")] == both
    assert catalog.realizations_where(family="streaming") == []
    assert [r.id for r in catalog.realizations_where(operator="total")] == ["total/two-stage"]
    assert [r.id for r in catalog.realizations_where(primitive="tile-sum")] == ["tile-sum/naive"]


def test_contract_comes_from_the_subject(tmp_path: Path) -> None:
    root = materialize(EXAMPLES / "positive" / "operator-realization", tmp_path)
    bare = epldb.load(root)
    composed = bare.realizations["total/two-stage"]
    assert bare.contract_name_of(composed) is None
    with pytest.raises(RunError, match="operator 'total' names no known contract"):
        contract_of(bare, composed)
    # The operator's contract, not its stages' primitive's, measures the operator realization.
    cat = _with_contracts(root, primitive="block-tile-reduce", operator="device-reduce")
    assert cat.ok, [p.format() for p in cat.problems]
    assert cat.contract_name_of(cat.realizations["tile-sum/naive"]) == "block-tile-reduce"
    assert cat.contract_name_of(cat.realizations["total/two-stage"]) == "device-reduce"
    assert contract_of(cat, cat.realizations["total/two-stage"]).name == "device-reduce"


def test_a_realization_with_no_subject_record_has_no_contract(tmp_path: Path) -> None:
    root = materialize(EXAMPLES / "negative" / "operator-unknown", tmp_path)
    cat = epldb.load(root)
    orphan = cat.realizations["grand-total/two-stage"]
    assert cat.subject_of(orphan) is None and cat.contract_name_of(orphan) is None
    assert cat.families_of(orphan) == set() and orphan not in cat.realizations_where()
    with pytest.raises(RunError, match="operator 'grand-total' is not in the catalog"):
        contract_of(cat, orphan)


def test_show_lists_an_operators_realizations(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    root = materialize(EXAMPLES / "positive" / "operator-realization", tmp_path)
    out = subprocess.run([sys.executable, "-m", "epldb", "--root", str(root), "show", "total", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["realizations"] == ["total/two-stage"]
