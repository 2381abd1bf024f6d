"""tools/probes/sector_tile_model.py: the CPU replay of transpose/sector-tile's blocks runs clean, and
catches an arithmetic slip (a shift that forgets y's base offset writes elements twice or never)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("sector_tile_model", ROOT / "tools" / "probes" / "sector_tile_model.py")
assert _SPEC is not None and _SPEC.loader is not None
model = importlib.util.module_from_spec(_SPEC)
sys.modules["sector_tile_model"] = model
_SPEC.loader.exec_module(model)


def test_every_launch_replays_clean() -> None:
    assert model.main() == 0


def test_a_grid_of_ceil_rows_over_tile_leaves_elements_unwritten() -> None:
    # The shifted segments reach E - 1 past the last aligned one: ceil(rows / TILE) blocks miss them.
    with pytest.raises(AssertionError, match="written"):
        model.replay(60, 29, 4, 128, 5, grid_rows=-(-60 // 32))  # 2 blocks where 67 rows need 3
