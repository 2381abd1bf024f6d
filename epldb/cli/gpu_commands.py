"""``epldb verify`` and ``epldb bench``: measured evidence on the GPU (thin wrappers of
epldb.measure; everything they do is callable from Python too)."""

from __future__ import annotations

import argparse
from pathlib import Path

from epldb.catalog import Catalog
from epldb.cli.common import UsageError, check_selection, load_catalog, parse_where, select_realizations
from epldb.contracts.base import MAX_SIZE_DIGITS, shape_sizes
from epldb.shard import Shard, parse_shard


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("ids", nargs="*", metavar="ID",
                        help="realization (or primitive) ids; default: every realization with a contract")
    common.add_argument("--out", type=Path, help="evidence folder (default: <root>/evidence)")
    common.add_argument("--resume", metavar="RUN", help="continue run RUN, skipping rows it already holds")
    common.add_argument("--where", action="append", metavar="PARAM=V1,V2",
                        help="only points whose PARAM is one of the values (repeatable)")
    common.add_argument("--shard", metavar="I/N",
                        help="run shard I of N only: the realizations split into N parts of about equal work, "
                             "the same on every machine (each shard measures its own ceilings and peers)")
    common.add_argument("--devices", metavar="all|0,1,...",
                        help="spread the run over these GPUs of this host: one child process a GPU, each running "
                             "its shard into the same --out; fails when any child fails")

    p = sub.add_parser("verify", parents=[common],
                       help="verify realizations on the GPU against their contract's float64 reference")
    p.add_argument("--max-n", type=int, help="skip verification shapes with more elements than this")
    p.add_argument("--cover", action="store_true",
                   help="only a sample of each parameter space that holds every value of every parameter "
                        "(what epldb sanitize runs)")
    p.set_defaults(func=verify)

    p = sub.add_parser("bench", parents=[common],
                       help="time realizations, peers and the device's ceilings in one run")
    p.add_argument("--quick", action="store_true", help="two shapes, no torch.compile: a few minutes at most")
    p.add_argument("--no-peers", action="store_true", help="time the realizations only")
    p.add_argument("--shape", action="append", default=[], metavar="RxC",
                   help="time at this shape instead of the contract's bench shapes (its shape variables joined "
                        "by 'x', e.g. 8192x32001; repeatable; a contract no shape fits is skipped)")
    p.add_argument("--sweep", action="store_true",
                   help="time at the contracts' sweep shapes, off the bench set (unaligned rows, few rows, ...): "
                        "evidence for epldb select --evaluate")
    p.set_defaults(func=bench)


def verify(args: argparse.Namespace) -> int:
    from epldb.measure import verify_command

    cat = load_catalog(args, lint=False)
    _check(cat, args)
    if args.devices is not None:
        extra = (["--max-n", str(args.max_n)] if args.max_n is not None else []) + (["--cover"] if args.cover else [])
        return _fan_out(cat, args, "verify", extra)
    return verify_command(cat, args.ids, out_dir=args.out, resume=args.resume, where=parse_where(args.where),
                          max_n=args.max_n, shard=_shard(args), cover=args.cover)


def bench(args: argparse.Namespace) -> int:
    from epldb.measure import bench_command

    cat = load_catalog(args, lint=False)
    _check(cat, args)
    if args.sweep and args.shape:
        raise UsageError("give --sweep or --shape, not both")
    for text in args.shape:
        sizes = shape_sizes(text)
        if sizes is None or min(sizes) < 1:
            raise UsageError(f"--shape {text!r}: positive integers of at most {MAX_SIZE_DIGITS} digits joined by 'x', e.g. 8192x32001 (rows x cols) or "
                             "1000003 (n)")
    if args.devices is not None:
        extra = (["--quick"] if args.quick else []) + (["--no-peers"] if args.no_peers else []) \
            + (["--sweep"] if args.sweep else []) + [f"--shape={t}" for t in args.shape]
        return _fan_out(cat, args, "bench", extra)
    return bench_command(cat, args.ids, args.quick, args.out, args.resume, where=parse_where(args.where),
                         peers=not args.no_peers, shapes=["sweep"] if args.sweep else args.shape,
                         shard=_shard(args))


def _check(cat: Catalog, args: argparse.Namespace) -> None:
    """Bad usage before any GPU work: an id that names nothing, a --where that selects nothing, a
    --shard that is not I/N with 1 <= I <= N."""
    _shard(args)
    check_selection(select_realizations(cat, args.ids), parse_where(args.where))


def _fan_out(cat: Catalog, args: argparse.Namespace, command: str, extra: list[str]) -> int:
    """``--devices``: the same command once a GPU, shard i/n each, into one evidence folder."""
    from epldb import fanout

    if args.shard is not None:
        raise UsageError("give --devices or --shard, not both (--devices gives each GPU its shard)")
    if args.resume is not None:
        raise UsageError("--resume continues one run; with --devices each GPU has its own: resume each with "
                         "--resume RUN --shard I/N")
    try:
        devices = fanout.parse_devices(args.devices, fanout.visible_devices())
    except ValueError as e:
        raise UsageError(str(e)) from None
    out = Path(args.out).resolve() if args.out is not None else cat.root / "evidence"
    where = [f"--where={w}" for w in args.where or []]
    argv = ["--root", str(cat.root), command, *args.ids, "--out", str(out), *where, *extra]
    return fanout.run_children(fanout.children(devices, argv))


def _shard(args: argparse.Namespace) -> Shard | None:
    try:
        return None if args.shard is None else parse_shard(args.shard)
    except ValueError as e:
        raise UsageError(str(e)) from None
