"""The ``epldb`` command line. Exit codes: 0 success (valid catalog), 1 invalid catalog or failed
check, 2 bad usage. Bad input never ends in a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from epldb.cli.common import EXIT_USAGE, UsageError

# Each command module exposes ``register(subparsers)``; the parser sets ``func`` per command.
_COMMAND_MODULES = ["catalog_commands", "compile_commands", "gpu_commands", "compare_commands", "site_commands",
                    "new_commands", "evidence_commands"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="epldb",
        description="Execution Primitive Lab: validate, query, compile, verify and benchmark the catalog.",
    )
    parser.add_argument("--root", help="repository root holding catalog/ and kernels/ (default: this repository)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    import importlib

    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(f"epldb.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"epldb.cli.{name}":
                raise
            continue  # a command room not built yet
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"epldb {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted; everything already written is kept", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the CLI boundary: a bug in epldb, not bad input
        if os.environ.get("EPL_DEBUG"):
            raise
        print(f"epldb {args.command}: internal error: {type(exc).__name__}: {exc}\n"
              "(this is a bug in epldb; rerun with EPL_DEBUG=1 for the traceback)", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
