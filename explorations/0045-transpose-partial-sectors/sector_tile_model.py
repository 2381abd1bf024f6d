#!/usr/bin/env python3
"""A CPU model of transpose/sector-tile's index arithmetic (kernels/include/epl/tile/transpose.cuh,
transpose_tile_sector_stores; experiment 0045): every block's staged rows and shifted stores,
replayed in Python. Checks that every element of y is written exactly once and with its value,
that every staged row read is inside x, and that every interior warp store starts on a 32-byte
sector. Run: `python3 explorations/0045-transpose-partial-sectors/sector_tile_model.py`.
"""

from __future__ import annotations

import itertools

import numpy as np


def replay(rows: int, cols: int, itemsize: int, row_bytes: int, y_offset: int, grid_rows: int | None = None) -> None:
    """One launch at (rows, cols), y starting ``y_offset`` elements past a sector boundary;
    ``grid_rows`` replaces the record's row count of blocks (to show what a shorter grid misses)."""
    tile, sector, per_lane = row_bytes // itemsize, 32 // itemsize, 4 // itemsize
    staged_rows = tile + sector - 1
    x = np.arange(rows * cols).reshape(rows, cols)
    y = np.full(cols * rows, -1)
    writes = np.zeros(cols * rows, dtype=int)
    grid = (-(-cols // tile), grid_rows or -(-(rows + sector - 1) // tile))  # the record's launch.grid
    for bx, by_ in itertools.product(range(grid[0]), range(grid[1])):
        c0, r0 = bx * tile, by_ * tile
        first = r0 - (sector - 1)
        edge = not (r0 >= sector - 1 and r0 + tile <= rows and c0 + tile <= cols)
        staged = {(i, j): x[first + i, c0 + j] for i in range(staged_rows) for j in range(tile)
                  if 0 <= first + i < rows and c0 + j < cols}
        for j in range(tile):
            c = c0 + j
            if c >= cols:
                assert edge
                continue
            s = ((y_offset + c * rows + r0) * itemsize % 32) // itemsize
            a = r0 - s
            for k in range(0, tile, 32 * per_lane):
                if not edge:
                    assert (y_offset + c * rows + a + k) * itemsize % 32 == 0, "a warp store off its sector"
                for lane, v in itertools.product(range(32), range(per_lane)):
                    r = a + k + lane * per_lane + v
                    assert 0 <= r - first < staged_rows
                    if edge and not 0 <= r < rows:
                        continue
                    assert 0 <= r < rows, "an interior store outside y"
                    y[c * rows + r] = staged[(r - first, j)]
                    writes[c * rows + r] += 1
    assert (writes == 1).all(), f"{rows} x {cols}: elements written {sorted(set(writes.tolist()))} times"
    assert (y.reshape(cols, rows) == x.T).all()


def main() -> int:
    shapes = [(37, 29), (1, 1), (3, 31), (33, 65), (129, 257), (200, 130), (64, 96)]
    for (rows, cols), itemsize, row_bytes, offset in itertools.product(shapes, (4, 2), (128, 256), (0, 1, 5)):
        replay(rows, cols, itemsize, row_bytes, offset)
    print(f"sector-tile model: {len(shapes) * 12} launches replayed, every element written once")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
