"""How a problem shape is written for people: one spelling for every page, table, chart and lead.

The convention (stated once on the site's home page):

- a row-wise contract is ``rows × cols`` (``4096 × 16384``): the number of rows first, then the row
  length, the order the kernels index them; any other size follows by name (``4096 × 16384, dim = 64``);
- a flat contract names its one size (``n = 3,000,017``, ``bytes = 134,283,264``);
- numbers are exact, never rounded to Ki/Mi (1 Ki reads as 1000 or 1024 and hides off-by-one sizes
  such as 3,000,017), with thousands separators from six digits on, where digits are hard to count
  (4096 and 16384 stay as the code writes them).

Evidence files keep shapes as canonical JSON (``{"cols":16384,"rows":4096}``); this module only
formats. No dependencies, so every layer (leads, the site, the CLI) can use it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

#: The sizes of a row-wise shape, in the order they are written (joined by " × ").
ROW_AXES = ("rows", "cols")

TIMES = " × "


def count_text(value: object) -> str:
    """An exact size: 16384 → '16384', 3000017 → '3,000,017'; anything not an integer as written."""
    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    return f"{value:,}" if abs(value) >= 100_000 else str(value)


def shape_text(shape: object) -> str:
    """A shape as people read it: a mapping ({"rows": 4096, "cols": 16384} → '4096 × 16384';
    {"n": 3000017} → 'n = 3,000,017'), its canonical JSON text, a list ([4096, 16384] →
    '4096 × 16384') or one integer; anything else as written."""
    loaded: object = shape
    if isinstance(shape, str):
        try:
            loaded = json.loads(shape)
        except ValueError:
            return shape
    if isinstance(loaded, Mapping):
        lead = [k for k in ROW_AXES if k in loaded]
        dims = TIMES.join(count_text(loaded[k]) for k in lead)
        rest = [f"{k} = {count_text(loaded[k])}" for k in sorted(loaded) if k not in ROW_AXES]
        return ", ".join(([dims] if dims else []) + rest)
    if isinstance(loaded, list):
        return TIMES.join(count_text(v) for v in loaded)
    if isinstance(loaded, int) and not isinstance(loaded, bool):
        return count_text(loaded)
    return str(shape)


__all__ = ["ROW_AXES", "TIMES", "count_text", "shape_text"]
