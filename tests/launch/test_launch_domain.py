"""launch.domain: which shapes a point serves, the static checks, and the skipping in bench counts."""

from __future__ import annotations

from pathlib import Path

import epldb
from epldb.bench import BenchItem, count_rows, in_domain
from epldb.contracts import get_contract
from epldb.launch import check_plan, plan_env
from epldb.launch.domain import outside_domain, shapes_for_point
from realization_fixtures import LAUNCH, make_repo

CONTRACT = get_contract("block-tile-reduce")
POINT = {"block": 256, "items": 4, "dtype": "float32", "op": "sum"}


def realization(tmp_path: Path, domain: str):
    root = make_repo(tmp_path, domain + LAUNCH)
    cat = epldb.load(root, lint=False)
    assert "tile-sum/naive" in cat.realizations, [p.format() for p in cat.problems]
    return cat.realizations["tile-sum/naive"]


def messages(problems) -> list[str]:
    return [p.format() for p in problems]


CAPACITY = """\
  domain:
    n:
      max: "block * items * 32"
      min: "block * items // 4 + 1"
"""


def test_bounds_are_inclusive_and_evaluated_per_point(tmp_path: Path) -> None:
    r = realization(tmp_path, CAPACITY)
    # block 256, items 4: n in [257, 32768]
    assert outside_domain(r, plan_env({"n": 257}, POINT)) is None
    assert outside_domain(r, plan_env({"n": 32768}, POINT)) is None
    assert outside_domain(r, plan_env({"n": 32769}, POINT)) == "n=32769 is outside this point's domain n in [257, 32768]"
    assert outside_domain(r, plan_env({"n": 256}, POINT)) == "n=256 is outside this point's domain n in [257, 32768]"
    # the same shape is inside for a larger point
    assert outside_domain(r, plan_env({"n": 32769}, {**POINT, "block": 512})) is None


def test_a_realization_without_domain_serves_every_shape(tmp_path: Path) -> None:
    r = realization(tmp_path, "")
    assert outside_domain(r, plan_env({"n": 1}, POINT)) is None
    assert outside_domain(r, plan_env({"n": 10**9}, POINT)) is None


def test_lint_accepts_a_covering_domain(tmp_path: Path) -> None:
    assert messages(check_plan(realization(tmp_path, CAPACITY), CONTRACT)) == []


def test_lint_names_an_unknown_shape_variable(tmp_path: Path) -> None:
    r = realization(tmp_path, '  domain:\n    cols:\n      max: "block"\n')
    assert messages(check_plan(r, CONTRACT)) == [
        "catalog/realizations/tile-sum/naive.yaml:23:7: error: $.launch.domain.cols: domain names 'cols', which is "
        "not a shape variable of contract 'block-tile-reduce' (n) [launch-plan]"
    ]


def test_lint_locates_a_bad_bound_expression_and_an_unknown_name(tmp_path: Path) -> None:
    r = realization(tmp_path, '  domain:\n    n:\n      max: "block *"\n      min: "lanes + 1"\n')
    got = messages(check_plan(r, CONTRACT))  # bounds checked min first
    assert len(got) == 2, got
    assert got[1].startswith("catalog/realizations/tile-sum/naive.yaml:23:12: error: $.launch.domain.n.max: "
                             "domain n.max expression 'block *', column")
    assert got[0].startswith("catalog/realizations/tile-sum/naive.yaml:24:12: error: $.launch.domain.n.min: "
                             "domain n.min expression 'lanes + 1', column 1: unknown name 'lanes' (known:")


def test_lint_refuses_points_whose_domain_is_empty(tmp_path: Path) -> None:
    # min above max at every point: no shape, not even a fitted one, is ever served
    r = realization(tmp_path, '  domain:\n    n:\n      min: "block + 1"\n      max: "block"\n')
    got = messages(check_plan(r, CONTRACT))
    assert len(got) == 1, got
    assert got[0].startswith("catalog/realizations/tile-sum/naive.yaml:22:5: error: $.launch.domain: ")
    assert f"{len(r.points())} parameter point(s) serve no shape of contract 'block-tile-reduce'" in got[0]
    assert "and " in got[0] and got[0].endswith("can never be verified; widen the domain or drop those parameter values [launch-plan]")


def test_lint_accepts_a_one_value_domain_no_contract_shape_enters(tmp_path: Path) -> None:
    # a kernel compiled for one size (n == block * 1000 + 7: no verification size of the contract)
    # is verified at shapes fitted into it, so the plan is sound
    r = realization(tmp_path, '  domain:\n    n:\n      min: "block * 1000 + 7"\n      max: "block * 1000 + 7"\n')
    assert not any(in_domain(r, dict(s), p) for s in CONTRACT.verify_shapes for p in r.points())
    assert messages(check_plan(r, CONTRACT)) == []
    assert all(shapes_for_point(r, p, CONTRACT.verify_shapes) for p in r.points())


def test_bench_counts_only_points_inside_their_domain(tmp_path: Path) -> None:
    root = make_repo(tmp_path, CAPACITY + LAUNCH)
    cat = epldb.load(root, lint=False)
    r = cat.realizations["tile-sum/naive"]
    points = r.points()
    shapes = CONTRACT.bench_shapes(quick=False)
    inside = sum(in_domain(r, dict(s), p) for p in points for s in shapes)
    assert 0 <= inside < len(points) * len(shapes)  # the contract's large shapes exceed every capacity
    assert count_rows(cat, [BenchItem(r.id, points)], quick=False, peers=False) == inside


def test_shapes_fitted_into_a_domain_keep_their_residue_and_only_where_none_serves() -> None:
    cat = epldb.load(lint=False)
    r = cat.realizations["softmax/online-registers"]  # domain: group * items // 4 * (...) + 1 .. group * items
    point = {"group": 32, "items": 8, "batch": 1, "min_block": 64, "dtype": "float32"}  # serves 65-256 columns
    shapes = [{"rows": 3, "cols": 31}, {"rows": 5, "cols": 100_003}, {"rows": 997, "cols": 65_544}]
    fitted = shapes_for_point(r, point, shapes)
    assert fitted == [{"rows": 3, "cols": 71}, {"rows": 5, "cols": 251}, {"rows": 997, "cols": 256}]
    assert all(f["cols"] % 8 == s["cols"] % 8 for f, s in zip(fitted, shapes))
    # a shape the point serves is kept as it is, and nothing is fitted beside it
    assert shapes_for_point(r, point, [*shapes, {"rows": 2, "cols": 100}]) == [{"rows": 2, "cols": 100}]


def test_every_point_of_the_catalog_has_a_verification_shape() -> None:
    cat = epldb.load(lint=False)
    for r in cat.realizations.values():
        contract = get_contract(cat.contract_name_of(r)) if r.launch else None
        if contract is None:
            continue
        for point in r.points():
            assert shapes_for_point(r, point, contract.verify_shapes), (r.id, point)


def test_a_multiple_serves_only_its_multiples_and_fits_others_up(tmp_path: Path) -> None:
    # a tensor map's rows must be whole 16-byte units: n a multiple of 16 // 4 = 4 fp32 elements
    r = realization(tmp_path, '  domain:\n    n:\n      multiple: "16 // 4"\n      max: 4099\n')
    assert outside_domain(r, plan_env({"n": 4096}, POINT)) is None
    assert outside_domain(r, plan_env({"n": 4097}, POINT)) == (
        "n=4097 is outside this point's domain: n must be a multiple of 4")
    assert shapes_for_point(r, POINT, [{"n": 4097}]) == [{"n": 4096}]  # 4100 is past max
    assert shapes_for_point(r, POINT, [{"n": 13}]) == [{"n": 16}]
    assert messages(check_plan(r, CONTRACT)) == []


def test_lint_locates_a_bad_multiple(tmp_path: Path) -> None:
    r = realization(tmp_path, '  domain:\n    n:\n      multiple: "lanes"\n')
    got = messages(check_plan(r, CONTRACT))
    assert len(got) == 1 and "$.launch.domain.n.multiple: domain n.multiple expression 'lanes', column 1: " \
        "unknown name 'lanes'" in got[0], got
