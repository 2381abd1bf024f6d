"""Each declared entry symbol occurs in the kernel source as a whole identifier."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.cxx import placeholders
from epldb.lint.kernel_path_inside import resolve_kernel
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "entry-symbols"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        path, why = resolve_kernel(catalog.kernels_dir, r.kernel.source)
        if path is None:
            continue  # reported by kernel-path-inside
        text = path.read_text(encoding="utf-8", errors="replace")
        for i, entry in enumerate(r.kernel.entries):
            if any(p not in r.params for p in placeholders(entry.expression)):
                continue  # an undeclared placeholder is placeholders-declared's message; the symbol follows from it
            name = entry.symbol.split("::")[-1]
            if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text):
                field = "symbol" if "symbol" in r.data["kernel"]["entries"][i] else "expression"
                yield Problem(r.loc("kernel", "entries", i, field),
                              f"entry symbol '{entry.symbol}' does not occur in kernels/{r.kernel.source}; "
                              "declare the kernel there or fix the name", RULE, f"$.kernel.entries[{i}].{field}")
