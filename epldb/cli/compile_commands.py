"""``epldb compile``: every realization × parameter point × target built with NVRTC, no GPU needed;
prints registers, shared memory, stack, spills, barriers and SASS facts, and checks the claims."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from epldb.cli.common import (EXIT_INVALID, EXIT_OK, UsageError, check_selection, dump_json, load_catalog,
                              parse_where, print_problems, select_realizations)
from epldb.problems import merge_repeats
from epldb.records import Realization, point_text


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("compile", help="build realizations with NVRTC (no GPU) and show their resources and SASS")
    p.add_argument("ids", nargs="*", metavar="ID", help="realization or primitive ids (default: all realizations)")
    p.add_argument("--target", action="append", help="only this target (repeatable), e.g. sm_90a")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--sass", action="store_true",
                   help="print the SASS of each selected entry and point (narrow it with --where and --entry)")
    p.add_argument("--where", action="append", metavar="PARAM=V1,V2",
                   help="only parameter points whose PARAM is one of the values (repeatable)")
    p.add_argument("--entry", action="append", metavar="NAME", help="with --sass: only this entry (repeatable)")
    p.add_argument("--record", action="store_true",
                   help="add the facts of every build to the committed static evidence (evidence/static/), "
                        "for the site and freshness to read without NVRTC; whole parameter spaces only")
    p.set_defaults(func=compile_command)


def compile_command(args: argparse.Namespace) -> int:
    from epldb.compile import builds_as_dicts, format_table
    from epldb.validate_deep import compile_all

    catalog = load_catalog(args)
    if not catalog.ok:
        print_problems(catalog.problems, sys.stderr)
        print("the catalog has errors; fix them first (`epldb validate --schema-only`)", file=sys.stderr)
        return EXIT_INVALID
    realizations = select_realizations(catalog, args.ids)
    check_selection(realizations, parse_where(args.where), args.target)
    if args.sass:
        return sass_command(catalog.root, realizations, args)
    if args.entry:
        raise UsageError("--entry narrows --sass; without --sass every entry is listed")
    where = parse_where(args.where)
    jobs = []
    for r in realizations:
        targets = [t for t in r.targets if not args.target or t in args.target]
        if args.target and not targets:
            print(f"{r.id}: declares none of {', '.join(args.target)} (targets: {', '.join(r.targets)})",
                  file=sys.stderr)
        jobs += [(r, target) for target in targets]
    if args.record and where:
        raise UsageError("--record keeps the facts of whole parameter spaces; drop --where")
    builds = compile_all(catalog.root, jobs, where)
    problems = merge_repeats(p for b in builds for p in b.problems)
    if args.record:
        from epldb.compile import find_toolchain
        from epldb.evidence.static import record, toolchain_id

        added = record(catalog.root, builds, toolchain_id(find_toolchain()))
        print(f"recorded {sum(added.values())} fact row(s), new or given their PTX hash, for {sum(1 for n in added.values() if n)} of "
              f"{len(added)} realization(s) under evidence/static/", file=sys.stderr)
    if args.json:
        dump_json({"builds": builds_as_dicts(builds), "problems": [p.as_dict() for p in problems]})
    else:
        print(format_table(builds))
        print_problems(problems)
    return EXIT_INVALID if any(p.severity == "error" for p in problems) else EXIT_OK


def sass_command(root: Path, realizations: list[Realization], args: argparse.Namespace) -> int:
    """The SASS of every selected (realization, target, point, entry), one listing each, for
    reading a kernel beside another (a peer's cuobjdump, say) without a GPU."""
    from epldb.compile import compile_realization, find_toolchain
    from epldb.compile.sass import disassemble, listings

    where = parse_where(args.where)
    tc = find_toolchain()
    if tc.nvdisasm is None:
        print("no nvdisasm: install nvidia-cuda-nvdisasm (pip) or a CUDA toolkit to read SASS", file=sys.stderr)
        return EXIT_INVALID
    status, shown = EXIT_OK, 0
    for r in realizations:
        points = r.points_where(where)
        if not points:
            continue
        for target in (t for t in r.targets if not args.target or t in args.target):
            build = compile_realization(root, r, target, points)
            if build.cubin is None:
                print_problems(build.problems, sys.stderr)
                status = EXIT_INVALID
                continue
            text, why = disassemble(build.cubin, tc.nvdisasm)
            if text is None:
                print(f"{r.id} {target}: {why}", file=sys.stderr)
                status = EXIT_INVALID
                continue
            code = listings(text)
            for e in build.entries:
                if args.entry and e.entry not in args.entry:
                    continue
                point = point_text(e.point)
                body = code.get(e.lowered_name, [])
                print(f"// {r.id}  {target}  {e.entry}  {point}\n// {e.expression}: {len(body)} instructions, "
                      f"{e.registers} registers")
                print("\n".join(body) + "\n")
                shown += 1
    if shown == 0 and status == EXIT_OK:
        raise UsageError("no entry matches: check the ids, --target, --where and --entry")
    return status
