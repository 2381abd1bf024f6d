"""The ``epldb`` command line. Bad input never ends in a traceback; the exit codes are EXIT_CODES."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from epldb.cli.common import EXIT_CODES, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, UsageError

# Each command module exposes ``register(subparsers)``; the parser sets ``func`` per command.
_COMMAND_MODULES = ["catalog_commands", "compile_commands", "gpu_commands", "compare_commands", "site_commands",
                    "new_commands", "evidence_commands", "select_commands", "sanitize_commands"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="epldb",
        description="Execution Primitive Lab: validate, query, compile, verify and benchmark the catalog.",
        epilog="exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items()),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--root", help=ROOT_HELP)
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
    for command in sub.choices.values():  # --root after the command too; there it wins
        command.add_argument("--root", default=argparse.SUPPRESS, help=ROOT_HELP)
    return parser


ROOT_HELP = ("repository root holding catalog/ and kernels/ (default: the nearest above the working "
             "directory, else the repository epldb is installed from)")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("epldb")
    except PackageNotFoundError:
        return "(not installed)"


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
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the CLI boundary: a bug in epldb, not bad input
        if os.environ.get("EPL_DEBUG"):
            raise
        print(f"epldb {args.command}: internal error: {type(exc).__name__}: {exc}\n"
              "(this is a bug in epldb; rerun with EPL_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
