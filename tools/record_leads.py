#!/usr/bin/env python3
"""Lead paragraphs for realization records after a kernel change.

After a change, each affected record's ``when_it_wins`` opens with a paragraph that cites the new
verify and bench runs; the text that was there follows, joined by " Earlier runs, before this
change: ". This tool writes that paragraph from the evidence:

    At commit SHA (CHANGE): verify RUN: 60/60 fp32 and 72/72 bf16 checks passed, bitwise on repeat
    (max_rel ...); bench RUN (copy ceiling 4253 GB/s). Best <subject> at <cells>. Elsewhere:
    <cells>. Against PREVIOUS its bests moved LO (cell) to HI (cell), median MED.

A cell is a dtype, the contract's other peer parameters, and a shape. "Best" lists the cells where
the record is the fastest verified realization of its subject in the bench run (ties go to the
earlier row, as in epldb.standings), each with its runner-up and its strongest peer (the verdict
from the p10-p90 ranges, epldb.standings.verdict); "Elsewhere" its other cells, with its gap to the
best there. A draft is out of the standings: its cells are set against the best verified one.

    python3 tools/record_leads.py --commit 6b5e356 --change "TEXT" --verify RUN --bench RUN \
        --previous RUN layernorm rmsnorm/staged            # dry run: print the leads
    ... --changes changes.yaml --write ...                  # prepend them to the records

Only the ``when_it_wins`` block of each file is rewritten (a folded scalar wrapped at 100
columns, two-space indent); every other byte stays. Each write is checked by parsing the new file
and is atomic (a temporary file, then os.replace).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.records import Realization
    from epldb.standings import Standing

JOIN = " Earlier runs, before this change: "
WIDTH = 100  # columns, indent included
INDENT = "  "
FIELD = "when_it_wins"
DTYPE_SHORT = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "float64": "fp64"}
DTYPE_ORDER = ("float64", "float32", "float16", "bfloat16")  # where a record declares no dtype list

Cell = tuple[str, str, str]  # (dtype, the contract's other peer parameters as JSON, shape JSON)


class LeadError(Exception):
    """A problem the command line reports in one plain line (unknown id, run, missing rows)."""


@dataclass(frozen=True)
class Best:
    """A subject's fastest passing row at one cell of one run."""

    subject: str
    gbps: float
    params: dict[str, Any]
    order: int  # the row's position in the evidence: equal rates go to the earlier row
    grid: str = ""  # a resident-sized grid as the row recorded it (grid_note), else ""


def grid_note(detail: Any) -> str:
    """What a bench row's detail says of the grids sized from resident_blocks ("grid 224 of 224
    resident"; several steps joined), or "" for a fixed grid: such a figure depends on the board."""
    from epldb.bench import grids_read

    return ", ".join(f"grid {g} of {r} resident" for g, r in grids_read(detail))


@dataclass(frozen=True)
class Inputs:
    commit: str
    verify: str
    benches: list[str]
    previous: list[str]


def _pct(ratio: float) -> str:
    return f"{(ratio - 1.0) * 100:+.1f}%"


def _short(subject: str) -> str:
    return subject.split("/", 1)[-1]


def _dtypes(r: "Realization", seen: set[str]) -> list[str]:
    declared = [str(d) for d in r.params.get("dtype", ())]
    rest = sorted(seen - set(declared), key=lambda d: (DTYPE_ORDER + (d,)).index(d))
    return [d for d in declared if d in seen] + rest


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def cell_label(cell: Cell) -> str:
    from epldb.site.data import params_dict

    dtype, problem, shape = cell
    named = params_dict(shape)
    dims = "x".join(str(named[k]) for k in ("rows", "cols") if k in named)  # other sizes (dim) are fixed
    if not dims:
        dims = ", ".join(f"{k} {v}" for k, v in sorted(named.items()))
    extra = "".join(f" {k} {v}" for k, v in sorted(params_dict(problem).items()))
    return f"{DTYPE_SHORT.get(dtype, dtype)}{extra} {dims}"


def _cell_key(cell: Cell, dtypes: list[str]) -> tuple[Any, ...]:
    from epldb.standings import _shape_order

    dtype, problem, shape = cell
    rank = dtypes.index(dtype) if dtype in dtypes else len(dtypes)
    return (rank, problem, _shape_order(shape), shape)


def bests(catalog: "Catalog", run_df: "pandas.DataFrame", subject: str) -> dict[Cell, dict[str, Best]]:
    """Per cell of one run: each realization of ``subject`` with its fastest passing row."""
    from epldb.contracts import get_contract
    from epldb.evidence import canonical_json
    from epldb.site.data import params_dict

    ids = {r.id for r in catalog.realizations_of(subject)}
    rows = run_df[(run_df["kind"] == "realization") & run_df["subject"].isin(ids)
                  & (run_df["status"] == "passed") & run_df["gbps"].notna()]
    out: dict[Cell, dict[str, Best]] = {}
    for order, row in enumerate(rows.itertuples(index=False)):
        contract = get_contract(catalog.contract_name_of(catalog.realizations[str(row.subject)]))
        params = params_dict(row.params)
        problem = contract.peer_params(params) if contract is not None else {"dtype": row.dtype}
        dtype = str(problem.pop("dtype", row.dtype))
        cell = (dtype, canonical_json(problem), str(row.shape))
        shown = {k: v for k, v in params.items() if k != "dtype" and k not in problem}
        best = Best(str(row.subject), float(row.gbps), shown, order, grid_note(getattr(row, "detail", None)))
        here = out.setdefault(cell, {})
        if best.subject not in here or best.gbps > here[best.subject].gbps:
            here[best.subject] = best
    return out


def _fastest(candidates: list[Best]) -> Best | None:
    return max(candidates, key=lambda b: (b.gbps, -b.order)) if candidates else None


def _standings(catalog: "Catalog", run_df: "pandas.DataFrame", subject: str) -> dict[Cell, "Standing"]:
    """The run's best against its strongest peer per cell (epldb.standings, this run alone)."""
    from epldb.standings import standings

    frame = run_df.copy()
    frame["stale"] = False  # the runs are named on purpose: kernels changed since still count
    out: dict[Cell, Standing] = {}
    for s in standings(catalog, frame, ids=[subject]):
        cell = (s.dtype, s.problem, s.shape)
        if cell not in out or s.peer.gbps > out[cell].peer.gbps:
            out[cell] = s
    return out


def verify_clause(r: "Realization", df: "pandas.DataFrame", run: str) -> str:
    rows = df[(df["run"] == run) & (df["kind"] == "realization") & (df["subject"] == r.id)]
    if not len(rows):
        raise LeadError(f"{r.id}: verify run {run} has no rows for it")
    dtypes = _dtypes(r, set(rows["dtype"].astype(str)))
    counts, errs = [], []
    for d in dtypes:
        mine = rows[rows["dtype"] == d]
        counts.append(f"{int((mine['status'] == 'passed').sum())}/{len(mine)} {DTYPE_SHORT.get(d, d)}")
        if mine["err_max_rel"].notna().any():
            errs.append(f"{mine['err_max_rel'].max():.2e} {DTYPE_SHORT.get(d, d)}")
    det = rows["deterministic"]
    if det.isna().all():
        repeat = "repeat not compared"
    elif (det == False).any():  # noqa: E712 - a column of True/False/NaN
        repeat = f"not bitwise on repeat at {int((det == False).sum())} of {int(det.notna().sum())}"  # noqa: E712
    else:
        repeat = "bitwise on repeat"
    tail = f" (max_rel {', '.join(errs)})" if errs else ""
    return f"verify {run}: {_and(counts)} checks passed, {repeat}{tail}"


def _newest_with(df: "pandas.DataFrame", runs: list[str], rid: str) -> str | None:
    have = set(df[(df["subject"] == rid) & df["run"].isin(runs)]["run"])
    return max(have) if have else None


def lead(catalog: "Catalog", df: "pandas.DataFrame", r: "Realization", change: str, given: Inputs) -> str:
    from epldb.contracts import get_contract
    from epldb.records import param_text

    bench = _newest_with(df, given.benches, r.id)
    if bench is None:
        raise LeadError(f"{r.id}: none of the bench runs {', '.join(given.benches)} has rows for it")
    run_df = df[df["run"] == bench]
    copy = run_df[(run_df["kind"] == "ceiling") & (run_df["subject"] == "ceiling/copy")]["gbps"]
    copy_gbps = float(copy.iloc[0]) if len(copy) else None
    head = f"bench {bench}" + (f" (copy ceiling {copy_gbps:.0f} GB/s)" if copy_gbps else "")
    text = f"At commit {given.commit} ({change}): {verify_clause(r, df, given.verify)}; {head}."

    contract = get_contract(catalog.contract_name_of(r))
    at_size = f"{contract.ceiling}-at-size" if contract is not None else "at-size"
    verified = {x.id for x in catalog.realizations_of(r.subject) if x.status == "verified"}
    table = bests(catalog, run_df, r.subject)
    dtypes = _dtypes(r, {c[0] for c in table})
    mine = sorted((c for c in table if r.id in table[c]), key=lambda c: _cell_key(c, dtypes))
    versus = _standings(catalog, run_df, r.subject)
    won: list[str] = []
    elsewhere: list[str] = []
    for cell in mine:
        me = table[cell][r.id]
        top = _fastest([b for s, b in table[cell].items() if s in verified])
        if r.status == "verified" and top is not None and top.subject == r.id:
            parts = [f"{cell_label(cell)} {me.gbps:.0f} GB/s"]
            s = versus.get(cell)
            shares = [f"{me.gbps / copy_gbps:.2f} of copy"] if copy_gbps else []
            if s is not None and s.of_at_size is not None:
                shares.append(f"{s.of_at_size:.2f} of {at_size}")
            shown = ", ".join([f"{k} {param_text(v)}" for k, v in sorted(me.params.items())] + ([me.grid] if me.grid else []))
            inner = "; ".join(x for x in (", ".join(shares), shown) if x)
            entry = parts[0] + (f" ({inner})" if inner else "")
            second = _fastest([b for sub, b in table[cell].items() if sub in verified and sub != r.id])
            if second is not None:
                entry += f", {_pct(me.gbps / second.gbps)} over {_short(second.subject)} ({second.gbps:.0f})"
            if s is not None:
                entry += (f", {_pct(1.0 + s.margin)} against {_short(s.peer.subject)} "
                          f"({s.peer.gbps:.0f}, {s.verdict})")
            won.append(entry)
        elif top is not None:
            elsewhere.append(f"{cell_label(cell)} {me.gbps:.0f} ({_pct(me.gbps / top.gbps)} to {_short(top.subject)})")
    if not mine:
        text += " No passing timed row of it in this run."
    elif r.status != "verified":
        text += (f" A draft, out of the standings; against the best verified {r.subject}: "
                 + ("; ".join(elsewhere) if elsewhere else "no verified one timed at its cells") + ".")
    else:
        text += (f" Best {r.subject} at " + "; ".join(won) + ".") if won else f" The best {r.subject} nowhere."
        if elsewhere:
            text += " Elsewhere: " + "; ".join(elsewhere) + "."
    previous = _newest_with(df, [p for p in given.previous if p < bench], r.id)
    if previous is not None and mine:
        before = bests(catalog, df[df["run"] == previous], r.subject)
        moved = [(table[c][r.id].gbps / before[c][r.id].gbps, c) for c in mine if r.id in before.get(c, {})]
        if moved:
            lo = min(moved, key=lambda m: m[0])
            hi = max(moved, key=lambda m: m[0])
            med = statistics.median_high(m[0] for m in moved)  # of an even count, the upper middle
            if len(moved) == 1:
                text += f" Against {previous} its best moved {_pct(lo[0])} ({cell_label(lo[1])})."
            else:
                text += (f" Against {previous} its bests moved {_pct(lo[0])} ({cell_label(lo[1])}) to "
                         f"{_pct(hi[0])} ({cell_label(hi[1])}), median {_pct(med)}.")
    return text


# --- the record file ---------------------------------------------------------------------------


def folded(value: str) -> str:
    """``when_it_wins: >-`` and the value wrapped as the records have it (a newline in the value is
    an empty line of the folded scalar)."""
    lines = [f"{FIELD}: >-"]
    for i, paragraph in enumerate(value.split("\n")):
        if i:
            lines.append("")
        lines += textwrap.wrap(paragraph, WIDTH, initial_indent=INDENT, subsequent_indent=INDENT,
                               break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(lines) + "\n"


def replace_field(text: str, value: str) -> str:
    """``text`` with the top-level field's block (its key line and the indented or empty lines after
    it, trailing empty lines left in place) replaced; the field is added before ``notes:`` (else at
    the end) where the record has none."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.startswith(f"{FIELD}:")), None)
    if start is None:
        at = next((i for i, ln in enumerate(lines) if ln.startswith("notes:")), len(lines))
        if at == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        return "".join(lines[:at]) + folded(value) + "".join(lines[at:])
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return "".join(lines[:start]) + folded(value) + "".join(lines[end:])


def rewritten(path: Path, value: str) -> str:
    """The record's text with ``value`` as its field, checked by parsing it back: the field reads
    as ``value`` and every other field as before."""
    from epldb.yamlsafe import load_yaml

    old_text = path.read_text(encoding="utf-8")
    new_text = replace_field(old_text, value)
    old_doc, _ = load_yaml(old_text, str(path))
    new_doc, problems = load_yaml(new_text, str(path))
    if old_doc is None or new_doc is None or problems:
        raise LeadError(f"{path}: the rewritten file does not parse; left unchanged")
    before = {k: v for k, v in old_doc.data.items() if k != FIELD}
    after = {k: v for k, v in new_doc.data.items() if k != FIELD}
    if before != after or new_doc.data.get(FIELD) != value:
        raise LeadError(f"{path}: the rewrapped {FIELD} would not read back as written; left unchanged")
    return new_text


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- command line ------------------------------------------------------------------------------


def _changes(catalog: "Catalog", path: str | None, default: str | None, rids: list[str]) -> dict[str, str]:
    """Each record's change text: the file's entry for its id, else for its subject, else --change."""
    import yaml

    mapping: dict[str, str] = {}
    if path:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise LeadError(f"cannot read --changes {path}: {exc}") from None
        if not isinstance(loaded, dict):
            raise LeadError(f"--changes {path}: expected a mapping of id to text")
        mapping = {str(k): " ".join(str(v).split()) for k, v in loaded.items()}
    out: dict[str, str] = {}
    for rid in rids:
        text = mapping.get(rid) or mapping.get(catalog.realizations[rid].subject) or default
        if not text:
            raise LeadError(f"{rid}: no change text (give --change or an entry in --changes)")
        out[rid] = text
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="record_leads.py", description=__doc__.split("\n\n")[0])
    p.add_argument("ids", nargs="+", metavar="ID", help="realization ids, or an operator/primitive id for all of its")
    p.add_argument("--commit", required=True, help="the commit whose kernels the runs measured")
    p.add_argument("--change", help="the change, as the parenthesis after the commit says it")
    p.add_argument("--changes", metavar="FILE", help="YAML/JSON mapping of realization or subject id to change text")
    p.add_argument("--verify", required=True, metavar="RUN")
    p.add_argument("--bench", required=True, action="append", metavar="RUN", help="repeatable")
    p.add_argument("--previous", action="append", default=[], metavar="RUN",
                   help="repeatable: the runs to measure movement against (the newest that timed it)")
    p.add_argument("--write", action="store_true", help="prepend the leads to the records (default: print them)")
    args = p.parse_args(argv)
    root = str(Path(__file__).resolve().parent.parent)  # this checkout's epldb, installed or not
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        import epldb
        from epldb.evidence import load_evidence

        catalog = epldb.load(lint=False)
        rids, unknown = catalog.select_realizations(args.ids)
        if unknown:
            raise LeadError(f"unknown id(s): {', '.join(unknown)}")
        changes = _changes(catalog, args.changes, args.change, rids)
        df = load_evidence(catalog=catalog)
        known = set(df["run"])
        missing = [run for run in [args.verify, *args.bench, *args.previous] if run not in known]
        if missing:
            raise LeadError(f"no evidence run named {', '.join(missing)}")
        given = Inputs(args.commit, args.verify, args.bench, args.previous)
        leads: dict[str, str] = {}
        for rid in rids:
            try:
                leads[rid] = lead(catalog, df, catalog.realizations[rid], changes[rid], given)
            except LeadError as exc:
                if rid in args.ids:  # named on its own: the runs must cover it
                    raise
                print(f"record_leads: skipped {exc}", file=sys.stderr)  # one of a subject's, not run
        if not args.write:
            for rid, text in leads.items():
                print(f"# {rid} ({catalog.realizations[rid].file})\n{text}\n")
            return 0
        files: dict[Path, str] = {}  # every record checked before the first is written
        for rid, text in leads.items():
            r = catalog.realizations[rid]
            files[catalog.root / r.file] = rewritten(catalog.root / r.file,
                                                     text + JOIN + r.when_it_wins if r.when_it_wins else text)
        for path, new_text in files.items():
            write_atomic(path, new_text)
            print(f"wrote {path.relative_to(catalog.root)}")
    except LeadError as exc:
        print(f"record_leads: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
