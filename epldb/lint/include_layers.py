"""A device building block includes only blocks of its own cooperation scope or of a narrower one:
thread/ < warp/ < group/ < block/ < cluster/ < device/ < tile/, pipeline/, mma/ (the rooms tile
staging and fusion will add) < body/ (the kernel bodies: resident, reread, staged, pipelined,
stream, reduce) < policy/ (the operators a body is instantiated with) < harness/. A warp
primitive that reaches for a block one is a block primitive in the wrong room, and the layering is
what lets a generator compose blocks without dragging in wider synchronization. The aggregators
(epl/<room>.cuh) and the util.cuh base sit outside the rooms; each room's aggregator includes every
header of the room, so compiling the aggregators (tests/compile) compiles the whole basis together."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from epldb.problems import Location, Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "include-layers"

#: Each room's rank: a header may include rooms of equal or lower rank. Rooms not listed are errors,
#: so a new room is a decision written here.
LAYERS = {"thread": 0, "warp": 1, "group": 2, "block": 3, "cluster": 4, "device": 5,
          "tile": 6, "pipeline": 6, "mma": 6,  # the tile-staging and fusion rooms to come
          "body": 7, "policy": 8, "harness": 9}
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def check(catalog: "Catalog") -> Iterator[Problem]:
    base = catalog.kernels_dir / "include" / "epl"
    if not base.is_dir():
        return
    yield from _aggregators_complete(catalog, base)
    for path in sorted(base.rglob("*.cuh")):
        rel = PurePosixPath(path.relative_to(base).as_posix())
        if len(rel.parts) < 2:
            continue  # an aggregator or util.cuh
        room = rel.parts[0]
        where = path.relative_to(catalog.root).as_posix()
        if room not in LAYERS:
            yield Problem(Location(where), f"kernels/include/epl/{room}/ is not a known room; add it to LAYERS in "
                          f"epldb/lint/include_layers.py at the rank of the threads that cooperate in it", RULE)
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _INCLUDE.finditer(text):
            target = PurePosixPath(m.group(1))
            parts = target.parts
            if parts[:1] == ("epl",):
                parts = parts[1:]
            elif parts[:1] == ("..",):
                parts = parts[1:]
            elif len(parts) == 1:
                continue  # beside it: the same room
            else:
                continue  # a CUDA or CCCL header
            if len(parts) < 2:
                continue  # util.cuh or an aggregator
            used = parts[0]
            if used in LAYERS and LAYERS[used] > LAYERS[room]:
                line = text.count("\n", 0, m.start()) + 1
                yield Problem(Location(where, line, 1),
                              f"{room}/ includes {m.group(1)} from the wider scope {used}/; move the shared part down "
                              f"to {room}/ or lower, or this header up to {used}/", RULE)


def _aggregators_complete(catalog: "Catalog", base: Path) -> Iterator[Problem]:
    for room in sorted(d for d in base.iterdir() if d.is_dir() and d.name in LAYERS):
        headers = sorted(h.name for h in room.glob("*.cuh"))
        aggregator = base / f"{room.name}.cuh"
        where = aggregator.relative_to(catalog.root).as_posix()
        if not aggregator.is_file():
            yield Problem(Location(where), f"{room.name}/ has no aggregator; add {where} including each "
                          f"header of the room ({', '.join(headers)})", RULE)
            continue
        included = {PurePosixPath(m.group(1)).as_posix() for m in _INCLUDE.finditer(aggregator.read_text(encoding="utf-8", errors="replace"))}
        for h in headers:
            if f"{room.name}/{h}" not in included and f"epl/{room.name}/{h}" not in included:
                yield Problem(Location(where), f"the aggregator does not include {room.name}/{h}; add "
                              f'#include "{room.name}/{h}" so the room compiles as a whole', RULE)
