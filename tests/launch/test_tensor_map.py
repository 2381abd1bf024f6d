"""Tensor-map launch arguments (launch.tensor_maps): the driver's rules checked without a GPU, the
plan binding a map by name, and lint locating a map that breaks a rule at a verification shape."""

from __future__ import annotations

from pathlib import Path

import pytest

import epldb
from epldb.contracts import get_contract
from epldb.launch import ArrayArg, TensorMapArg, TensorMapError, check_plan, check_tensor_map, contract_arrays, encode_tiled, plan_env, resolve_plan
from epldb.launch.tensor_map import contiguous_strides
from realization_fixtures import make_repo

CONTRACT = get_contract("block-tile-reduce")
POINT = {"block": 256, "items": 4, "dtype": "bfloat16", "op": "sum"}


def test_contiguous_strides_are_bytes_of_the_outer_dims() -> None:
    assert contiguous_strides("float32", [3, 64, 32]) == (64 * 32 * 4, 32 * 4)
    assert contiguous_strides("bfloat16", [4096]) == ()


def test_a_2d_bf16_box_with_128b_swizzle_is_encodable() -> None:
    # The GEMM tile: 128 rows x 64 bf16 columns = 128 bytes a row, the 128B swizzle span.
    assert check_tensor_map("bfloat16", [8192, 8192], [8192 * 2], [128, 64], "128B") == []


@pytest.mark.parametrize("dtype, dims, strides, box, swizzle, fragment", [
    ("float32", [4097, 8191], [8191 * 4], [32, 32], "none", "multiple of 16"),       # odd row: stride 32764 B
    ("float32", [1024, 1024], [4096], [32, 300], "none", "between 1 and 256"),       # box side > 256
    ("bfloat16", [1024, 1024], [2048], [32, 4], "none", "inner box side is 8 bytes"),  # inner box < 16 B
    ("float32", [1024, 1024], [4096], [32, 64], "128B", "more than the 128B swizzle span"),
    ("float32", [1024, 1024], [4096], [32, 32], "256B", "is not one of"),
    ("float32", [1, 1, 1, 1, 1, 1], [16] * 5, [1] * 6, "none", "1 to 5 dims"),
    ("float32", [1024, 1024], [4096], [32], "none", "box has 1 sides"),
    ("float32", [0, 1024], [4096], [1, 32], "none", "dim 0 is 0"),
    ("complex64", [16], [], [16], "none", "no tensor-map data type"),
])
def test_the_driver_rules_refuse_what_cutensormapencodetiled_would(dtype, dims, strides, box, swizzle, fragment) -> None:
    why = check_tensor_map(dtype, dims, strides, box, swizzle)
    assert any(fragment in w for w in why), why


def test_encode_refuses_a_misaligned_address_before_calling_the_driver() -> None:
    tm = TensorMapArg("x_tiles", "x", "float32", (64, 64), (256,), (32, 32))
    with pytest.raises(TensorMapError, match="not on a 16-byte boundary"):
        encode_tiled(tm, 0x1008)
    assert tm.box_bytes == 32 * 32 * 4


LAUNCH_MAP = """\
  tensor_maps:
    x_tiles: {array: x, dims: ["ceil_div(n, 64)", 64], box: [items, 64], swizzle: 128B}
  steps:
    - entry: main
      grid: "ceil_div(n, block * items)"
      block: block
      args: [x_tiles, partials, n]
"""


def realization(tmp_path: Path, launch: str):
    cat = epldb.load(make_repo(tmp_path, launch), lint=False)
    assert "tile-sum/naive" in cat.realizations, [p.format() for p in cat.problems]
    return cat.realizations["tile-sum/naive"]


def test_a_step_passes_a_map_bare_and_the_plan_resolves_it(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_MAP)
    plan = resolve_plan(r, plan_env({"n": 4096}, POINT), contract_arrays(CONTRACT))
    assert plan.ok, [p.format() for p in plan.problems]
    (tm,) = plan.tensor_maps
    assert tm == TensorMapArg("x_tiles", "x", "bfloat16", (64, 64), (128,), (4, 64), "128B")
    assert plan.steps[0].args[0] == tm and plan.steps[0].args[1] == ArrayArg("partials", "output")
    # x reaches the kernel through its map: lint does not call it unpassed.
    assert [p.message for p in check_plan(r, CONTRACT) if "passed to no step" in p.message] == []


def test_lint_locates_a_map_that_breaks_a_rule_at_a_verification_shape(tmp_path: Path) -> None:
    # float32 rows of 63 elements: the row stride, 252 bytes, is no multiple of 16.
    r = realization(tmp_path, LAUNCH_MAP.replace('64)", 64]', '63)", 63]').replace("[items, 64]", "[items, 32]")
                    .replace("swizzle: 128B", "swizzle: none"))
    problems = check_plan(r, CONTRACT)
    assert any(p.json_path == "$.launch.tensor_maps.x_tiles" and "multiple of 16" in p.message for p in problems), \
        [p.format() for p in problems]


def test_a_map_of_an_unknown_array_or_in_an_expression_is_an_error(tmp_path: Path) -> None:
    r = realization(tmp_path, LAUNCH_MAP.replace("array: x", "array: y"))
    plan = resolve_plan(r, plan_env({"n": 4096}, POINT), contract_arrays(CONTRACT))
    assert any("no contract array" in p.message for p in plan.problems)
    r = realization(tmp_path / "b", LAUNCH_MAP.replace("grid: \"ceil_div(n, block * items)\"", "grid: \"x_tiles + 1\""))
    assert any("is a tensor map" in p.message for p in check_plan(r, CONTRACT))
