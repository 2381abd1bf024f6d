"""``epldb evidence seal``: turn the journals of runs (a killed run's, or files brought back from a GPU
machine) into sealed Parquet runs; ``epldb evidence runs``: every sealed run with its provenance."""

from __future__ import annotations

import argparse
from pathlib import Path

from epldb.cli.common import EXIT_INVALID, EXIT_OK, UsageError, dump_json, table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("evidence", help="evidence files: seal journals into runs, list runs")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    s = verbs.add_parser("seal", help="seal run journals (<run>.csv) into <run>.parquet, atomically")
    s.add_argument("paths", nargs="*", metavar="PATH",
                   help="journals or folders holding them (default: every journal under evidence/)")
    s.set_defaults(func=seal_command)
    r = verbs.add_parser("runs", help="every sealed run: device, kind, rows, commit, provenance")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(func=runs_command)


def _journals(args: argparse.Namespace) -> list[Path]:
    from epldb.catalog import default_root
    from epldb.evidence import journals

    root = Path(args.root).resolve() if args.root else default_root()
    if not args.paths:
        return list(journals(root))
    found: list[Path] = []
    for given in args.paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(path.rglob("*.csv"))
        elif path.is_file() and path.suffix == ".csv":
            found.append(path)
        else:
            raise UsageError(f"{given}: not a run journal (<run>.csv) or a folder holding them")
    return found


def seal_command(args: argparse.Namespace) -> int:
    from epldb.evidence import COLUMNS, seal

    status = EXIT_OK
    for journal in _journals(args):
        header = journal.open(encoding="utf-8", errors="replace").readline().strip()
        if header != ",".join(COLUMNS):
            print(f"{journal}:1:1: error: not an evidence journal: its header is not the evidence columns "
                  f"({', '.join(COLUMNS)}); left as it is")
            status = EXIT_INVALID
            continue
        sealed = seal(journal)
        print(f"sealed {journal} -> {sealed.name}")
    return status


def runs_command(args: argparse.Namespace) -> int:
    from epldb.catalog import default_root
    from epldb.evidence.provenance import run_provenance

    root = Path(args.root).resolve() if args.root else default_root()
    runs = run_provenance(root)
    if args.json:
        dump_json([r.as_dict() for r in runs])
        return EXIT_OK
    print(table([[r.device, r.run, r.kind, str(r.rows), r.commit[:12] or "-", r.verdict] for r in runs],
                ["device", "run", "kind", "rows", "commit", "provenance"]))
    return EXIT_OK
