"""``epldb compare``: each problem's best realization against the peers, from the committed evidence,
one bench run at a time (epldb.standings). No GPU needed."""

from __future__ import annotations

import argparse

from epldb.cli.common import EXIT_OK, UsageError, dump_json, load_catalog, table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("compare", help="the best realization against every peer, per problem and shape, "
                                       "within one bench run of the committed evidence")
    p.add_argument("ids", nargs="*", metavar="ID", help="realization, primitive or operator ids (default: all)")
    p.add_argument("--device", help="only this device's evidence (e.g. nvidia-h200)")
    p.add_argument("--drafts", action="store_true", help="let draft realizations compete too")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=compare)


def compare(args: argparse.Namespace) -> int:
    from epldb.evidence import load_evidence
    from epldb.site.data import knobs_label, params_label, shape_label
    from epldb.standings import COPY_SHARE, standings, tally

    cat = load_catalog(args, lint=False)
    _, unknown = cat.select_realizations(args.ids)
    if unknown:
        raise UsageError(f"unknown id(s): {', '.join(unknown)} (realization, primitive or operator ids)")
    df = load_evidence(cat.root, cat)
    if args.device:
        df = df[df["device"] == args.device]
    rows = standings(cat, df, ids=args.ids, drafts=args.drafts)
    if args.json:
        dump_json([s.as_dict() for s in rows])
        return EXIT_OK
    if not rows:
        print("no run in the evidence timed both a selected realization and a peer at the same problem")
        return EXIT_OK
    body = [[s.contract, s.dtype, params_label(s.problem), shape_label(s.shape), s.best.subject.split("/", 1)[-1],
             knobs_label(s.best.params, s.problem), f"{s.best.gbps:.0f}",
             "-" if s.of_copy is None else f"{s.of_copy:.2f}", "-" if s.of_at_size is None else f"{s.of_at_size:.2f}",
             s.peer.subject.split("/", 1)[-1],
             f"{s.peer.gbps:.0f}", f"{100 * s.margin:+.1f}%", s.verdict, s.run + ("" if s.complete else " (partial)")]
            for s in rows]
    print(table(body, ["contract", "dtype", "problem", "shape", "best", "at", "GB/s", "of copy", "of at-size", "peer",
                       "GB/s", "margin", "p10-p90", "run"]))
    print()
    summary = [[device, contract, dtype, params_label(problem), str(t.shapes), str(t.at_least_median), str(t.ahead),
                str(t.level), str(t.behind), str(t.at_copy_share), str(t.at_size_share)]
               for (device, contract, dtype, problem), t in sorted(tally(rows).items())]
    print("Against the strongest peer at each shape (medians; ahead/behind only where the p10-p90 ranges part),")
    print(f"against the run's copy ceiling (the best's median at or above {COPY_SHARE:.0%} of it), and against the")
    print("same run's plain copy or read of the shape's own bytes (where it measured one: 64 MiB and more).")
    print("Each shape's run is the newest that timed every realization any run timed there, else the newest (partial).")
    print(table(summary, ["device", "contract", "dtype", "problem", "shapes", ">= peer", "ahead", "level", "behind",
                          f">= {COPY_SHARE:.0%} copy", f">= {COPY_SHARE:.0%} at-size"]))
    return EXIT_OK
