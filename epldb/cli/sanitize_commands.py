"""``epldb sanitize``: realizations verified under compute-sanitizer, a row per tool (a thin
wrapper of epldb.sanitize)."""

from __future__ import annotations

import argparse
from pathlib import Path

from epldb.cli.common import UsageError, load_catalog


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from epldb.sanitize import DEFAULT_MAX_N, DEFAULT_TIMEOUT_S, TOOLS

    p = sub.add_parser("sanitize", help="verify realizations under compute-sanitizer (memcheck, racecheck, "
                                        "synccheck, initcheck): one evidence row per realization and tool")
    p.add_argument("ids", nargs="*", metavar="ID",
                   help="realization (or primitive) ids; default: every realization with a contract")
    p.add_argument("--tool", action="append", choices=TOOLS, metavar="TOOL",
                   help=f"a sanitizer tool (repeatable; default: all of {', '.join(TOOLS)})")
    p.add_argument("--max-n", type=int, default=DEFAULT_MAX_N,
                   help=f"verification shapes of at most this many elements (default {DEFAULT_MAX_N})")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"seconds one realization may take under one tool (default {DEFAULT_TIMEOUT_S})")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="children at a time (default 1); the kernels are compiled once first when N > 1")
    p.add_argument("--all-points", action="store_true",
                   help="verify every parameter point (default: a sample holding every value of every parameter)")
    p.add_argument("--out", type=Path, help="evidence folder (default: <root>/evidence)")
    p.add_argument("--resume", metavar="RUN", help="continue run RUN, skipping (realization, tool) rows it holds")
    p.set_defaults(func=sanitize)


def sanitize(args: argparse.Namespace) -> int:
    from epldb.sanitize import TOOLS, sanitize_command

    if args.max_n < 1 or args.timeout <= 0 or args.jobs < 1:
        raise UsageError("--max-n, --timeout and --jobs must be positive")
    cat = load_catalog(args, lint=False)
    return sanitize_command(cat, args.ids, tools=args.tool or TOOLS, out_dir=args.out, resume=args.resume,
                            max_n=args.max_n, timeout_s=args.timeout, jobs=args.jobs, all_points=args.all_points)
