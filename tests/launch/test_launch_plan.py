"""Plan resolution for one shape and point, and the static check lint runs, on located records."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

import epldb
from epldb.contracts import get_contract
from epldb.launch import ArrayArg, LaunchLimits, ScalarArg, check_plan, contract_arrays, plan_env, plans_in_domain, resolve_plan
from realization_fixtures import make_repo

CONTRACT = get_contract("block-tile-reduce")
POINT = {"block": 256, "items": 4, "dtype": "bfloat16", "op": "sum"}


def realization(tmp_path: Path, launch: str | None = None):
    root = make_repo(tmp_path, launch) if launch is not None else make_repo(tmp_path)
    cat = epldb.load(root, lint=False)
    assert "tile-sum/naive" in cat.realizations, [p.format() for p in cat.problems]
    return cat.realizations["tile-sum/naive"]


def messages(problems) -> list[str]:
    return [p.format() for p in problems]


def test_resolves_grid_block_shared_scratch_and_args(tmp_path: Path) -> None:
    r = realization(tmp_path)
    plan = resolve_plan(r, plan_env({"n": 4097}, POINT), contract_arrays(CONTRACT))
    assert plan.ok, messages(plan.problems)
    (step,) = plan.steps
    assert step.grid == (5, 1, 1)  # ceil(4097 / 1024)
    assert step.block == (256, 1, 1)
    assert step.shared_bytes == 512  # block * sizeof(bfloat16)
    assert step.args == (ArrayArg("x", "input"), ArrayArg("partials", "output"), ScalarArg(4097, "n"),
                         ArrayArg("counter", "scratch"))
    (scratch,) = plan.scratch
    assert (scratch.name, scratch.dtype, scratch.count, scratch.zero) == ("counter", "int32", 1, True)


def test_real_catalog_plans_resolve_at_every_point_and_verify_shape() -> None:
    cat = epldb.load(lint=False)
    checked = 0
    for r in cat.realizations.values():
        contract = get_contract(cat.contract_name_of(r))
        if contract is None or not r.launch:
            continue
        assert check_plan(r, contract) == []
        for shape, point, plan in plans_in_domain(r, contract, contract.verify_shapes):
            assert plan.ok, messages(plan.problems)
            if contract.name == "block-tile-reduce":  # one block per tile, one partial per block
                assert plan.steps[0].grid[0] == contract.outputs(shape, point)[0].count
            checked += 1
    assert checked > 0


LAUNCH_BAD_GRID = """\
  steps:
    - entry: main
      grid: "ceil_div(n, block * items"
      block: block
      args: [x, partials, n]
"""


def test_bad_expression_is_located_at_the_field_with_the_column(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_BAD_GRID)
    assert messages(check_plan(r, CONTRACT)) == [
        "catalog/realizations/tile-sum/naive.yaml:23:13: error: $.launch.steps[0].grid: grid expression "
        "'ceil_div(n, block * items', column 26: expected ')' to close the '(' at column 9 but found the end "
        "of the expression [launch-plan]"
    ]


LAUNCH_BAD_NAMES = """\
  steps:
    - entry: mian
      grid: ["ceil_div(n, blok)", 1]
      block: block * x
      args: [x, partials, n + items, counter]
"""


def test_static_check_names_entries_and_arrays(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_BAD_NAMES)
    got = messages(check_plan(r, CONTRACT))
    # dtype-valued parameters give <param>_bytes; only dtype has dtype values here.
    known = "block, dtype, dtype_bytes, items, n, op, partials, x"
    assert got == [
        f"catalog/realizations/tile-sum/naive.yaml:23:14: error: $.launch.steps[0].grid[0]: grid.x expression "
        f"'ceil_div(n, blok)', column 13: unknown name 'blok' (known: {known}) [launch-plan]",
        "catalog/realizations/tile-sum/naive.yaml:24:14: error: $.launch.steps[0].block: block expression "
        "'block * x', column 9: 'x' is an array, not a number [launch-plan]",
        f"catalog/realizations/tile-sum/naive.yaml:25:38: error: $.launch.steps[0].args[3]: argument 4 expression "
        f"'counter', column 1: unknown name 'counter' (known: {known}) [launch-plan]",
        "catalog/realizations/tile-sum/naive.yaml:22:14: error: $.launch.steps[0].entry: entry 'mian' is not one "
        "of kernel.entries (main) [launch-plan]",
    ]


def test_unquoted_comma_in_a_yaml_list_gets_a_hint(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_BAD_NAMES.replace('["ceil_div(n, blok)", 1]', "[ceil_div(n, block), 1]"))
    first = check_plan(r, CONTRACT)[0]
    assert first.json_path == "$.launch.steps[0].grid[0]"
    assert first.message == (
        "grid.x expression 'ceil_div(n', column 11: expected ')' to close the '(' at column 9 but found the end "
        "of the expression (inside a YAML [a, b] list, quote an expression that contains a comma)"
    )


LAUNCH_TOO_BIG = """\
  steps:
    - entry: main
      grid: "ceil_div(n, block)"
      block: "block * 8"
      shared_bytes: "300 * 1024"
      args: [x, partials, n]
"""


def test_limits_are_checked_per_point(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_TOO_BIG)
    plan = resolve_plan(r, plan_env({"n": 31}, POINT), contract_arrays(CONTRACT))
    assert not plan.ok
    assert [p.message for p in plan.problems] == [
        "block.x is 2048; it must be between 1 and 1024 (at block=256, items=4, dtype=bfloat16, op=sum, n=31)",
        "block has 2048 threads; at most 1024 are allowed (at block=256, items=4, dtype=bfloat16, op=sum, n=31)",
        "shared_bytes is 307200; it must be between 0 and 232448 (at block=256, items=4, dtype=bfloat16, op=sum, n=31)",
    ]
    # The static check reports each field once, not once per point and shape.
    static = check_plan(r, CONTRACT)
    assert sorted(p.json_path for p in static) == ["$.launch.steps[0].block", "$.launch.steps[0].shared_bytes"]
    # A device with more shared memory accepts what sm_90 refuses.
    roomy = resolve_plan(r, plan_env({"n": 31}, {**POINT, "block": 128}), contract_arrays(CONTRACT),
                         LaunchLimits(max_shared_bytes=512 * 1024))
    assert roomy.ok and roomy.steps[0].block == (1024, 1, 1)


def test_runtime_evaluation_error_names_the_point(tmp_path: Path) -> None:
    launch = LAUNCH_BAD_GRID.replace('"ceil_div(n, block * items"', '"n // (block - 256)"')
    r = realization(tmp_path, launch)
    plan = resolve_plan(r, plan_env({"n": 31}, POINT), contract_arrays(CONTRACT))
    assert [p.message for p in plan.problems] == [
        "grid expression 'n // (block - 256)', column 3: division by zero in '//' "
        "(at block=256, items=4, dtype=bfloat16, op=sum, n=31)"
    ]
    assert plan.problems[0].location.line == 23


def test_scalar_arguments_must_fit_int32(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_BAD_GRID.replace('"ceil_div(n, block * items"', "1").replace(
        "args: [x, partials, n]", 'args: [x, partials, "n * 1048576"]'))
    plan = resolve_plan(r, plan_env({"n": 4097}, POINT), contract_arrays(CONTRACT))
    assert [p.json_path for p in plan.problems] == ["$.launch.steps[0].args[2]"]
    assert "outside the 32-bit int range" in plan.problems[0].message


def test_missing_plan_and_missing_contract_parameter(tmp_path: Path) -> None:
    r = realization(tmp_path)
    # Without a launch plan, a realization under a contract cannot be run.
    import dataclasses

    bare = dataclasses.replace(r, launch=None)
    assert [p.severity for p in check_plan(bare, CONTRACT)] == ["warning"]
    no_op = dataclasses.replace(r, params={k: v for k, v in r.params.items() if k != "op"})
    assert any("needs parameter(s) op" in p.message for p in check_plan(no_op, CONTRACT))


@pytest.mark.parametrize("grid", ['"0"', '"n - n"'])
def test_empty_grid_is_refused(tmp_path: Path, grid: str) -> None:
    r = realization(tmp_path, LAUNCH_BAD_GRID.replace('"ceil_div(n, block * items"', grid))
    plan = resolve_plan(r, plan_env({"n": 31}, POINT), contract_arrays(CONTRACT))
    assert plan.problems[0].message.startswith("grid.x is 0; it must be between 1 and 2147483647")


# --- float scalars of the contract (a norm's eps) ---------------------------------------------------


class TileReduceWithEps(type(CONTRACT)):  # type: ignore[misc]
    """block-tile-reduce with a float scalar, as a norm contract declares ``eps``."""

    scalar_args: ClassVar[dict[str, float]] = {"eps": 1e-5}


EPS_CONTRACT = TileReduceWithEps()
LAUNCH_EPS = LAUNCH_BAD_GRID.replace('"ceil_div(n, block * items"', '"ceil_div(n, block * items)"').replace(
    "args: [x, partials, n]", "args: [x, partials, n, eps]")


def test_a_bare_float_scalar_becomes_a_float32_argument(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_EPS)
    bindings = contract_arrays(EPS_CONTRACT)
    assert bindings["eps"] == ScalarArg(1e-5, "eps", "float32")
    plan = resolve_plan(r, plan_env({"n": 4097}, POINT), bindings)
    assert plan.ok, messages(plan.problems)
    assert plan.steps[0].args == (ArrayArg("x", "input"), ArrayArg("partials", "output"), ScalarArg(4097, "n"),
                                  ScalarArg(1e-5, "eps", "float32"))
    assert ScalarArg(4097, "n").dtype == "int32"
    assert check_plan(r, EPS_CONTRACT) == []


def test_a_float_scalar_the_contract_lacks_is_an_unknown_name(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_EPS)
    assert "eps" not in contract_arrays(CONTRACT)
    (problem,) = check_plan(r, CONTRACT)
    assert problem.format() == (
        "catalog/realizations/tile-sum/naive.yaml:25:30: error: $.launch.steps[0].args[3]: argument 4 expression "
        "'eps', column 1: unknown name 'eps' (known: block, dtype, dtype_bytes, items, n, op, partials, x) "
        "[launch-plan]")
    plan = resolve_plan(r, plan_env({"n": 4097}, POINT), contract_arrays(CONTRACT))
    assert [p.json_path for p in plan.problems] == ["$.launch.steps[0].args[3]"]


def test_a_float_scalar_inside_an_expression_is_refused(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_EPS.replace("args: [x, partials, n, eps]", 'args: [x, partials, "n * eps"]'))
    problem, unpassed = check_plan(r, EPS_CONTRACT)
    assert unpassed.severity == "warning" and "'eps' is passed to no step" in unpassed.message
    assert problem.json_path == "$.launch.steps[0].args[2]"
    assert problem.message == ("argument 3 expression 'n * eps', column 5: 'eps' is a float scalar of the contract: "
                               "pass it bare as an argument, not in an expression")
    plan = resolve_plan(r, plan_env({"n": 4097}, POINT), contract_arrays(EPS_CONTRACT))
    assert [p.message for p in plan.problems] == [problem.message]


def test_a_float_scalar_passed_to_no_step_is_a_warning(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_EPS.replace("args: [x, partials, n, eps]", "args: [x, partials, n]"))
    assert [(p.severity, p.message) for p in check_plan(r, EPS_CONTRACT)] == [
        ("warning", "contract scalar 'eps' is passed to no step")]


LAUNCH_UNALIGNED = """\
  scratch:
    counter: {dtype: int32, count: 1, zero: true}
  steps:
    - entry: main
      unaligned_entry: scalar
      unaligned_when: "n % (16 // dtype_bytes)"
      grid: "ceil_div(n, block * items)"
      block: block
      args: [x, partials, n, counter]
"""


def two_entry_realization(tmp_path: Path, launch: str, extra: tuple[str, ...] = ("scalar",)):
    """The fixture realization with further entries (default one, 'scalar') beside 'main'."""
    root = make_repo(tmp_path, launch)
    path = root / "catalog/realizations/tile-sum/naive.yaml"
    main = '    - name: main\n      expression: "tile_sum_naive<{block}, {dtype}>"\n'
    path.write_text(path.read_text().replace(main, main + "".join(main.replace("main", e) for e in extra)))
    cat = epldb.load(root, lint=False)
    assert [e.name for e in cat.realizations["tile-sum/naive"].kernel.entries] == ["main", *extra]
    return cat.realizations["tile-sum/naive"]


def test_an_unaligned_entry_is_the_fallback_and_unaligned_when_rules_a_shape_out(tmp_path: Path) -> None:
    r = two_entry_realization(tmp_path, LAUNCH_UNALIGNED)
    assert check_plan(r, CONTRACT) == []
    arrays = contract_arrays(CONTRACT)
    # bf16: 8 elements per 16 bytes. n = 4096 may take the aligned entry; the runner falls back to
    # 'scalar' only if an array turns out misaligned.
    (step,) = resolve_plan(r, plan_env({"n": 4096}, POINT), arrays).steps
    assert (step.entry, step.unaligned_entry) == ("main", "scalar")
    # n = 4097: the shape rules the aligned entry out, whatever the arrays.
    (step,) = resolve_plan(r, plan_env({"n": 4097}, POINT), arrays).steps
    assert (step.entry, step.unaligned_entry) == ("scalar", None)


LAUNCH_SPLIT = LAUNCH_UNALIGNED.replace("      unaligned_entry: scalar\n", "      unaligned_entry: scalar\n      split_entry: split\n")


def three_entry_realization(tmp_path: Path, launch: str):
    """The fixture realization with 'scalar' and 'split' entries beside 'main'."""
    return two_entry_realization(tmp_path, launch, ("scalar", "split"))


def test_unaligned_names_are_checked(tmp_path: Path) -> None:
    r = two_entry_realization(tmp_path, LAUNCH_UNALIGNED.replace("unaligned_entry: scalar", "unaligned_entry: scalr"))
    got = messages(check_plan(r, CONTRACT))
    assert any("$.launch.steps[0].unaligned_entry: unaligned_entry 'scalr' is not one of kernel.entries (main, scalar)"
               in m for m in got), got
    r = two_entry_realization(tmp_path / "b", LAUNCH_UNALIGNED.replace("      unaligned_entry: scalar\n", ""))
    got = messages(check_plan(r, CONTRACT))
    assert any("unaligned_when without unaligned_entry" in m for m in got), got
    r = two_entry_realization(tmp_path / "c", LAUNCH_UNALIGNED.replace("n % (16 // dtype_bytes)", "n % widht"))
    got = messages(check_plan(r, CONTRACT))
    assert any("$.launch.steps[0].unaligned_when: unaligned_when expression 'n % widht', column 5: unknown name 'widht'"
               in m for m in got), got
    r = three_entry_realization(tmp_path / "d", LAUNCH_SPLIT.replace("split_entry: split", "split_entry: splt"))
    assert any("$.launch.steps[0].split_entry: split_entry 'splt' is not one of kernel.entries (main, scalar, split)"
               in m for m in messages(check_plan(r, CONTRACT)))
    # unaligned_when with a split entry alone is complete: the shapes it rules out take that entry.
    r = three_entry_realization(tmp_path / "e", LAUNCH_SPLIT.replace("      unaligned_entry: scalar\n", ""))
    assert check_plan(r, CONTRACT) == []


def test_a_split_entry_serves_rows_off_16_byte_boundaries_and_arrays_at_one_offset(tmp_path: Path) -> None:
    r = three_entry_realization(tmp_path, LAUNCH_SPLIT)
    assert check_plan(r, CONTRACT) == []
    arrays = contract_arrays(CONTRACT)
    # n = 4096 (bf16: whole vectors): the aligned entry, the split one for arrays at one offset mod
    # 16, the scalar one for arrays at different offsets.
    (step,) = resolve_plan(r, plan_env({"n": 4096}, POINT), arrays).steps
    assert (step.entry, step.split_entry, step.unaligned_entry, step.entry_splits) == ("main", "split", "scalar", False)
    assert [step.entry_for(a) for a in ((0, 256), (4, 260), (0, 4))] == ["main", "split", "scalar"]
    # n = 4097: the shape rules the aligned entry out; the split entry serves it unless the arrays
    # sit at different offsets mod 16.
    (step,) = resolve_plan(r, plan_env({"n": 4097}, POINT), arrays).steps
    assert (step.entry, step.split_entry, step.unaligned_entry, step.entry_splits) == ("split", None, "scalar", True)
    assert [step.entry_for(a) for a in ((0, 256), (4, 260), (0, 4))] == ["split", "split", "scalar"]


# --- resident_blocks: a grid sized by what the device holds at once ----------------------------------

LAUNCH_RESIDENT = LAUNCH_BAD_GRID.replace('"ceil_div(n, block * items"', '"min(ceil_div(n, block), resident_blocks)"')


def test_a_grid_reads_resident_blocks_from_the_runner(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_RESIDENT)
    asked: list[tuple] = []

    def resident(entry: str, block: tuple[int, int, int], shared: int) -> int:
        asked.append((entry, block, shared))
        return 7

    plan = resolve_plan(r, plan_env({"n": 100000}, POINT), contract_arrays(CONTRACT), resident=resident)
    assert plan.ok, messages(plan.problems)
    assert plan.steps[0].grid == (7, 1, 1)
    assert plan.steps[0].resident_blocks == 7  # kept, so that a bench row can say what it launched
    assert asked == [("main", (256, 1, 1), 0)]  # the step's own block and shared memory
    # Fewer blocks of work than the device holds: the work decides.
    small = resolve_plan(r, plan_env({"n": 300}, POINT), contract_arrays(CONTRACT), resident=resident)
    assert small.steps[0].grid == (2, 1, 1)


def test_without_a_gpu_resident_blocks_is_one_block_per_sm(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_RESIDENT)
    plan = resolve_plan(r, plan_env({"n": 100000}, POINT), contract_arrays(CONTRACT), LaunchLimits(sms=66))
    assert plan.steps[0].grid == (66, 1, 1) and plan.steps[0].resident_blocks == 66
    assert check_plan(r, CONTRACT) == []


def test_a_grid_that_does_not_read_resident_blocks_records_none(tmp_path: Path) -> None:
    fixed = LAUNCH_BAD_GRID.replace('"ceil_div(n, block * items"', '"ceil_div(n, block * items)"')
    plan = resolve_plan(realization(tmp_path, fixed), plan_env({"n": 100000}, POINT), contract_arrays(CONTRACT))
    assert plan.ok, messages(plan.problems)
    assert [s.resident_blocks for s in plan.steps] == [None]


def test_only_a_grid_may_read_resident_blocks(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_RESIDENT.replace("block: block", 'block: "min(block, resident_blocks)"'))
    (problem,) = check_plan(r, CONTRACT)
    assert problem.json_path == "$.launch.steps[0].block"
    assert "'resident_blocks' depends on the block size and shared memory: only a grid may read it" in problem.message
