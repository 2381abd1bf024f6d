"""``epldb evidence seal``: turn the journals of runs (a killed run's, or files brought back from a GPU
machine) into sealed Parquet runs; ``epldb evidence merge``: bring sealed runs from elsewhere into
evidence/<device>/, checked; ``epldb evidence runs``: every sealed run with its provenance."""

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
    m = verbs.add_parser("merge", help="bring sealed runs from elsewhere (<run>.parquet + <run>.env.json) into "
                         "evidence/<device>/, checked, all or nothing")
    m.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="runs, or folders holding them (searched below)")
    m.set_defaults(func=merge_command)
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


def merge_command(args: argparse.Namespace) -> int:
    """Exit 0 when every run was merged or is already present (merging twice is harmless), 1 when
    any was refused (then nothing was written)."""
    from epldb.catalog import default_catalog, default_root
    from epldb.evidence.environment import known_devices
    from epldb.evidence.merge import merge

    root = Path(args.root).resolve() if args.root else default_root()
    devices = known_devices(default_catalog(root).targets.values())
    result = merge(root, [Path(p) for p in args.paths], devices)
    for problem in result.problems:
        print(problem.format())
    for item, dest in result.present:
        print(f"already present: {item.run} ({dest.relative_to(root).as_posix()})")
    if not result.ok:
        print(f"nothing merged: {sum(p.severity == 'error' for p in result.problems)} run(s) or file(s) refused")
        return EXIT_INVALID
    for item, dest in result.merged:
        print(f"merged {item.parquet.as_posix()} -> {dest.relative_to(root).as_posix()}")
    if not result.merged and not result.present:
        print("nothing merged: no sealed run (<run>.parquet with <run>.env.json) in the paths given")
        return EXIT_INVALID
    return EXIT_OK


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
