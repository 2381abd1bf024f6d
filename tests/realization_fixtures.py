"""A tiny repository with one block-tile-reduce realization, for launch-plan and evidence tests.

Built from tests/examples/base (the loader's fixture root): its primitive gains the
``block-tile-reduce`` contract and its realization is replaced by ``REALIZATION`` (or the text a
test passes), so launch plans and evidence are tested against real, located records.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from examples import BASE

REALIZATION = """\
id: tile-sum/naive
primitive: tile-sum
title: Naive tile sum
summary: Thread 0 of each block adds its tile.
status: {status}
strategy:
  - name: serial
    text: Thread 0 loops over the tile.
kernel:
  source: reduction/tile-sum/naive.cu
  entries:
    - name: main
      expression: "tile_sum_naive<{{block}}, {{dtype}}>"
params:
  block: [128, 256]
  items: [1, 4]
  dtype: [float32, bfloat16]
  op: [sum]
targets: [sm_80, sm_90]
launch:
{launch}
determinism: bitwise
"""

LAUNCH = """\
  scratch:
    counter: {dtype: int32, count: 1, zero: true}
  steps:
    - entry: main
      grid: "ceil_div(n, block * items)"
      block: block
      shared_bytes: "block * dtype_bytes"
      args: [x, partials, n, counter]
"""


def make_repo(dest: Path, launch: str = LAUNCH, status: str = "draft") -> Path:
    """A repository root under ``dest`` whose realization ``tile-sum/naive`` has ``launch``."""
    root = dest / "repo"
    shutil.copytree(BASE, root)
    prim = root / "catalog/primitives/reduction/tile-sum.yaml"
    prim.write_text(prim.read_text() + "contract: block-tile-reduce\n")
    real = root / "catalog/realizations/tile-sum/naive.yaml"
    real.write_text(REALIZATION.format(launch=launch.rstrip("\n"), status=status))
    return root
