"""What every command shares: loading the catalog from ``--root``, printing problems, exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any

from epldb.catalog import Catalog, load
from epldb.problems import Problem

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad usage (an unknown id, a bad option value): exit 2 with the message."""


def load_catalog(args: argparse.Namespace, *, lint: bool = True) -> Catalog:
    return load(args.root, lint=lint)


def print_problems(problems: Iterable[Problem], stream: Any = sys.stdout) -> None:
    for p in problems:
        print(p.format(), file=stream)


def dump_json(payload: Any) -> None:
    json.dump(payload, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain fixed-width table, left-aligned text, right-aligned numbers."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]

    def fmt(row: list[str]) -> str:
        cells = []
        for value, width in zip(row, widths):
            s = str(value)
            numeric = s.replace(".", "", 1).replace("-", "", 1).replace("%", "").isdigit()
            cells.append(s.rjust(width) if numeric else s.ljust(width))
        return "  ".join(cells).rstrip()

    return "\n".join([fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)])


def summary_counts(problems: list[Problem]) -> str:
    n = {s: sum(p.severity == s for p in problems) for s in ("error", "warning", "notice")}
    return f"{n['error']} error(s), {n['warning']} warning(s), {n['notice']} notice(s)"


def parse_where(pairs: list[str] | None) -> dict[str, list[str]] | None:
    """``--where PARAM=V1,V2`` options (repeatable) as param -> accepted values (strings)."""
    if not pairs:
        return None
    out: dict[str, list[str]] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--where expects PARAM=V1,V2,... (got {pair!r})")
        k, v = pair.split("=", 1)
        out.setdefault(k.strip(), []).extend(x.strip() for x in v.split(",") if x.strip())
    return out
