"""``epldb select`` and ``epldb rules``: the realization and point the committed evidence picks for
a subject at a shape, dtype and device, how good such picks are on shapes they did not see
(``--evaluate``), and the decision table they imply (epldb.select). No GPU needed."""

from __future__ import annotations

import argparse
from typing import Any

from epldb.cli.common import EXIT_OK, UsageError, dump_json, load_catalog, table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("select", help="the realization and parameter point to run at a shape, from the evidence")
    p.add_argument("subjects", nargs="*", metavar="SUBJECT",
                   help="operator or primitive id (one to select; with --evaluate, any number, default all)")
    p.add_argument("--shape", help="the contract's shape variables joined by 'x', e.g. 8192x32001 (rows x cols)")
    p.add_argument("--dtype", help="input dtype, e.g. bfloat16")
    p.add_argument("--device", help="whose evidence decides (default: this machine's GPU, else the device "
                                    "measured most)")
    p.add_argument("--problem", action="append", metavar="KEY=VALUE", default=[],
                   help="what else defines the problem, e.g. op=max (repeatable); --op is short for it")
    p.add_argument("--op", help="the reduction's operator (sum, max)")
    p.add_argument("--evaluate", action="store_true",
                   help="leave one shape out of the evidence at a time, select, score the pick with its rows")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=select_command)

    p = sub.add_parser("rules", help="the decision table the evidence implies: row-length regions -> realization")
    p.add_argument("subject", metavar="SUBJECT", help="operator or primitive id")
    p.add_argument("--device", help="only this device's evidence")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=rules_command)


def _problem(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in args.problem:
        k, sep, v = pair.partition("=")
        if not sep or not k or not v:
            raise UsageError(f"--problem {pair!r}: write KEY=VALUE, e.g. --problem op=max")
        out[k.strip()] = v.strip()
    if args.op:
        out["op"] = args.op
    return out


def select_command(args: argparse.Namespace) -> int:
    from epldb.select import SelectError, Selector
    from epldb.select.choose import microseconds

    if args.device is not None and not args.device.strip():
        raise UsageError("--device: give a device's name as its evidence folder spells it, e.g. nvidia-h200, or "
                         "leave it out")
    cat = load_catalog(args, lint=False)
    selector = Selector(cat)
    try:
        if args.evaluate:
            return _evaluate(args, selector)
        if len(args.subjects) != 1 or not args.shape or not args.dtype:
            raise UsageError("give one SUBJECT, --shape and --dtype (e.g. epldb select softmax --shape 8192x32001 "
                             "--dtype bfloat16), or --evaluate")
        choice = selector.select(args.subjects[0], args.shape, args.dtype, args.device, **_problem(args))
    except SelectError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        dump_json(choice.as_dict())
        return EXIT_OK
    print(choice.summary())
    if choice.note:
        print(f"note: {choice.note}")
    print(f"why: {choice.reason}")
    if choice.evidence:
        print("rests on:")
        print(table([[e["run"], e["realization"], e["params"], e["shape"], microseconds(e["time_ms"])]
                     for e in choice.evidence], ["run", "realization", "params", "shape", "us"]))
    if choice.alternatives:
        print("next:")
        print(table([[a["realization"], ", ".join(f"{k}={v}" for k, v in a["point"].items()),
                      microseconds(a["predicted_ms"]), a["basis"]] for a in choice.alternatives[:4]],
                    ["realization", "point", "us", "basis"]))
    return EXIT_OK


def _evaluate(args: argparse.Namespace, selector: Any) -> int:
    from epldb.select.evaluate import FAR, NEAR, SHARE_NEAR, evaluate

    result = evaluate(selector.lab, args.subjects or None, selector)
    if args.json:
        dump_json(result.as_dict())
        return EXIT_OK
    by: dict[str, list[float]] = {}
    for c in result.cells:
        by.setdefault(c.subject, []).append(c.ratio)
    print(table([[s, str(len(r)), f"{sum(x <= NEAR for x in r) / len(r):.0%}", f"{sum(x <= FAR for x in r) / len(r):.0%}",
                  f"{max(r):.2f}"] for s, r in sorted(by.items())],
                ["subject", "cells", f"<= {NEAR - 1:.0%}", f"<= {FAR - 1:.0%}", "worst"]))
    worst = sorted(result.cells, key=lambda c: -c.ratio)[:8]
    if worst:
        print("\nworst picks (pick / best measured at the hidden shape):")
        print(table([[c.subject, c.dtype, ", ".join(f"{k}={v}" for k, v in c.problem.items()) or "-", c.shape,
                      c.pick.split("/", 1)[-1], c.best.split("/", 1)[-1], f"{c.ratio:.2f}", c.basis] for c in worst],
                    ["subject", "dtype", "problem", "hidden shape", "pick", "best", "ratio", "basis"]))
    within_far = sum(c.ratio <= FAR for c in result.cells) / len(result.cells) if result.cells else 0.0
    print(f"\n{len(result.cells)} cells: {result.share_near:.1%} within {NEAR - 1:.0%} of the best (bar {SHARE_NEAR:.0%}), "
          f"{within_far:.1%} within {FAR - 1:.0%} (bar: all); bar holds: {'yes' if result.holds else 'no'}")
    return EXIT_OK


def rules_command(args: argparse.Namespace) -> int:
    from epldb.select import SelectError
    from epldb.select.rules import rules

    cat = load_catalog(args, lint=False)
    try:
        regions = rules(cat, args.subject, args.device)
    except SelectError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        dump_json([r.as_dict() for r in regions])
        return EXIT_OK
    if not regions:
        print(f"no evidence of {args.subject}" + (f" on {args.device}" if args.device else ""))
        return EXIT_OK
    body = []
    for r in regions:
        rows = "" if r.rows is None else (f"{r.rows[0]}" if r.rows[0] == r.rows[1] else f"{r.rows[0]}-{r.rows[1]}")
        points = "; ".join(", ".join(f"{k}={v}" for k, v in p.items() if k != "dtype") for p in r.points[:3])
        body.append([r.device, r.dtype, ", ".join(f"{k}={v}" for k, v in r.problem.items()) or "-",
                     f"{r.low}-{r.high}", rows, r.realization.split("/", 1)[-1],
                     points + (f" (+{len(r.points) - 3})" if len(r.points) > 3 else ""), "/".join(r.basis)])
    print(table(body, ["device", "dtype", "problem", regions[0].axis, regions[0].beside, "realization", "points",
                       "basis"]))
    print()
    for rid, why in {r.realization: r.reason for r in regions}.items():
        cut = why.find(". ")
        print(f"{rid.split('/', 1)[-1]}: {why[: cut + 1] if 0 <= cut < 240 else why[:240]}")
    return EXIT_OK
