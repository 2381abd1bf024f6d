"""What every command shares: loading the catalog from ``--root``, printing problems, exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.catalog import Catalog, default_root
from epldb.lab import load
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.records import Realization

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {
    EXIT_OK: "success (a valid catalog, a passed check)",
    EXIT_INVALID: "an invalid catalog or a failed check",
    EXIT_USAGE: "bad usage (an unknown id, option or value; a selection that selects nothing)",
    EXIT_INTERNAL: "an internal error (a bug in epldb: EPL_DEBUG=1 shows the traceback)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); everything already written is kept",
}


class UsageError(Exception):
    """Bad usage (an unknown id, a bad option value): exit 2 with the message."""


def load_catalog(args: argparse.Namespace, *, lint: bool = True) -> Catalog:
    """The catalog of ``--root``, or the nearest above the working directory; when neither names it
    (the one epldb is installed from is read), stderr says which."""
    if args.root is None:
        root = default_root()
        cwd = Path.cwd().resolve()
        if root != cwd and root not in cwd.parents:
            print(f"epldb: no catalog above {cwd}; reading the one at {root}", file=sys.stderr)
    return load(args.root, lint=lint)


def print_problems(problems: Iterable[Problem], stream: Any = None) -> None:
    # sys.stdout looked up at the call, not at import, so a redirected stdout receives them too
    stream = sys.stdout if stream is None else stream
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


def check_selection(realizations: "Sequence[Realization]", where: Mapping[str, Sequence[str]] | None,
                    targets: Sequence[str] | None = None) -> None:
    """A selection that selects nothing is bad usage, never an empty table: an unknown target, a
    ``--where`` parameter none of the realizations has, values that match no parameter point."""
    if targets and not any(t in r.targets for r in realizations for t in targets):
        known = sorted({t for r in realizations for t in r.targets})
        raise UsageError(f"--target {', '.join(targets)}: none of the selected realizations declares it "
                         f"(their targets: {', '.join(known) or 'none'})")
    if not where:
        return
    names = {n for r in realizations for n in r.params}
    for name in where:
        if name not in names:
            raise UsageError(f"--where {name}=...: no selected realization has a parameter '{name}' "
                             f"(parameters: {', '.join(sorted(names)) or 'none'})")
    if not any(r.points_where(where) for r in realizations):
        shown = " ".join(f"{k}={','.join(vs)}" for k, vs in where.items())
        raise UsageError(f"--where {shown}: no parameter point of the selected realizations matches")


def select_realizations(catalog: Catalog, ids: list[str]) -> list["Realization"]:
    """Realizations named directly or through their primitive or operator; all when no id is given."""
    if not ids:
        return list(catalog.realizations.values())
    chosen, unknown = catalog.select_realizations(ids)
    if unknown:
        raise UsageError(f"no realization, primitive or operator '{unknown[0]}'; `epldb list --kind realization` "
                         "shows them")
    return [catalog.realizations[i] for i in chosen]
