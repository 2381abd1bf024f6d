"""``epldb validate``, ``epldb list`` and ``epldb show``: the catalog as data."""

from __future__ import annotations

import argparse
import difflib
from dataclasses import fields, is_dataclass
from typing import Any

from epldb.catalog import Catalog
from epldb.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    dump_json,
    load_catalog,
    print_problems,
    summary_counts,
    table,
)
from epldb.records import Realization, Record


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="check every record: schema, lint rules, kernel builds and claims, evidence")
    p.add_argument("--schema-only", action="store_true",
                   help="schema, lint rules and evidence freshness only: no compilation")
    p.add_argument("--strict", action="store_true",
                   help="stale evidence of a verified realization is an error (use after a GPU run); without it, "
                        "a warning: re-measure pending")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=validate)

    p = sub.add_parser("list", help="list records, optionally filtered")
    p.add_argument("--kind", choices=["feature", "primitive", "realization", "operator", "experiment"],
                   help="only this kind (default: primitives and realizations when filtering, else all)")
    p.add_argument("--family", help="only primitives/realizations of this family")
    p.add_argument("--feature", help="only primitives/realizations exploiting this feature")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=list_records)

    p = sub.add_parser("show", help="show one record")
    p.add_argument("id", help="a record id, e.g. block-reduce or block-reduce/warp-shuffle")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=show)


def _counts(cat: Catalog) -> str:
    families = len({p.family for p in cat.primitives.values()})
    return (f"{len(cat.features)} features, {len(cat.primitives)} primitives in {families} families, "
            f"{len(cat.realizations)} realizations, {len(cat.operators)} operators, {len(cat.experiments)} experiments")


def validate(args: argparse.Namespace) -> int:
    from epldb.lab import validate as validate_catalog

    cat = validate_catalog(args.root)
    problems = list(cat.problems)
    if cat.ok:
        from epldb.evidence import evidence_problems
        from epldb.lint import evidence_provenance

        problems.extend(evidence_problems(cat, strict=args.strict))
        problems.extend(evidence_provenance.check(cat))
    if not args.schema_only:
        from epldb.validate_deep import deep_checks

        problems.extend(deep_checks(cat))
    errors = [p for p in problems if p.severity == "error"]
    if args.json:
        dump_json({"valid": not errors, "root": str(cat.root), "counts": {
            "features": len(cat.features), "primitives": len(cat.primitives),
            "realizations": len(cat.realizations), "operators": len(cat.operators),
            "experiments": len(cat.experiments)},
            "problems": [p.as_dict() for p in problems]})
    else:
        print_problems(problems)
        verdict = "valid" if not errors else "INVALID"
        print(f"catalog {verdict}: {_counts(cat)}; {summary_counts(problems)}")
    return EXIT_INVALID if errors else EXIT_OK


def _record_kind(record: Record) -> str:
    return type(record).__name__.lower()


def list_records(args: argparse.Namespace) -> int:
    cat = load_catalog(args)
    for value, known, what in ((args.family, {p.family for p in cat.primitives.values()}, "family"),
                               (args.feature, set(cat.features), "feature")):
        if value is not None and value not in known:
            raise UsageError(f"no {what} '{value}'; known: {', '.join(sorted(known))}")
    filtering = args.family is not None or args.feature is not None
    kinds = [args.kind] if args.kind else (["primitive", "realization"] if filtering else
                                           ["feature", "primitive", "realization", "operator"])
    if filtering and any(k in ("feature", "operator") for k in kinds):
        raise UsageError("--family and --feature filter primitives and realizations only")
    rows: list[Record] = []
    for kind in kinds:
        if kind == "primitive":
            rows += cat.primitives_where(family=args.family, feature=args.feature)
        elif kind == "realization":
            rows += cat.realizations_where(family=args.family, feature=args.feature)
        elif kind == "feature":
            rows += list(cat.features.values())
        elif kind == "experiment":
            rows += list(cat.experiments.values())
        else:
            rows += list(cat.operators.values())
    if args.json:
        dump_json([{"kind": _record_kind(r), "id": r.id, "title": r.title, "file": r.file,
                    **({"family": r.family} if hasattr(r, "family") else {}),
                    **({"status": r.status} if hasattr(r, "status") else {})} for r in rows])
    else:
        print(table([[_record_kind(r), r.id, getattr(r, "family", "") or
                      (", ".join(sorted(cat.families_of(r))) if isinstance(r, Realization) else ""),
                      getattr(r, "status", ""), r.title] for r in rows],
                    ["kind", "id", "family", "status", "title"]))
        print(f"{len(rows)} record(s)")
    print_problems([p for p in cat.problems if p.severity == "error"])
    return EXIT_INVALID if not cat.ok else EXIT_OK


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)
                if f.name not in ("source", "data")}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def show(args: argparse.Namespace) -> int:
    cat = load_catalog(args)
    record = cat.get(args.id)
    failed = [rf.path for rf in cat.files if rf.expected_id == args.id and not rf.valid]
    if record is None and failed:
        # The record exists but did not load: its own problems say why, not "no record".
        print_problems(p for p in cat.problems if p.location.file in failed and p.severity == "error")
        return EXIT_INVALID
    if record is None:
        ids = [r.id for r in cat.records()]
        close = difflib.get_close_matches(args.id, ids, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `epldb list` shows every id"
        raise UsageError(f"no record '{args.id}'{hint}")
    payload = {"kind": _record_kind(record), **_plain(record)}
    derived: dict[str, Any] = {}
    if _record_kind(record) in ("primitive", "operator"):
        derived["realizations"] = [r.id for r in cat.realizations_of(record.id)]
    if _record_kind(record) == "feature":
        derived["primitives"] = [p.id for p in cat.primitives_where(feature=record.id)]
        derived["operators"] = [o.id for o in cat.operators_with(record.id)]
    if _record_kind(record) in ("primitive", "operator", "realization"):
        derived["experiments"] = [e.id for e in cat.experiments_concerning(record.id)]
    if isinstance(record, Realization):
        derived["compile_facts"] = _compile_facts(cat, record)
    payload.update(derived)
    own = [p for p in cat.problems if p.location.file == record.file]
    if args.json:
        dump_json({**payload, "problems": [p.as_dict() for p in own]})
    else:
        _print_record(payload)
        print_problems(own)
    return EXIT_OK


def _compile_facts(cat: Catalog, r: Realization) -> dict[str, Any]:
    """Per target, the committed compile facts of today's kernel (evidence/static/): registers, static
    shared memory and spills over every point, and the claims verdict; or why there are none."""
    from epldb.evidence.freshness import current_hashes
    from epldb.evidence.static import facts_path, read_facts

    current = current_hashes(cat.root, cat)[r.id]
    rows = [f for f in read_facts(facts_path(cat.root, r.id)) if f["source_hash"] == current]
    out: dict[str, Any] = {}
    for target in r.targets:
        mine = [f for f in rows if f["target"] == target]
        if not mine:
            out[target] = "stale or missing: `epldb compile --record " + r.id + "` records them"
            continue
        regs = sorted({f["registers"] for f in mine})
        smem = sorted({f["static_shared_bytes"] for f in mine})
        spills = sum(f["spill_store_bytes"] + f["spill_load_bytes"] for f in mine)
        out[target] = (f"{len(mine)} builds; registers {regs[0]}-{regs[-1]}; static smem {smem[0]}-{smem[-1]} B; "
                       f"spill bytes {spills}; claims " + ("failed" if any(f["claims"] == "failed" for f in mine) else "hold"))
    return out


def _print_record(payload: dict[str, Any], indent: str = "") -> None:
    for key, value in payload.items():
        if value in (None, "", [], {}, ()):
            continue
        if isinstance(value, dict):
            print(f"{indent}{key}:")
            _print_record(value, indent + "  ")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            print(f"{indent}{key}:")
            for i, item in enumerate(value, 1):
                first = True
                for k, v in item.items():
                    lead = f"{indent}  {i}. " if first else f"{indent}     "
                    print(f"{lead}{k}: {v}")
                    first = False
        elif isinstance(value, list):
            print(f"{indent}{key}: {', '.join(map(str, value))}")
        else:
            text = " ".join(str(value).split())
            print(f"{indent}{key}: {text}")
