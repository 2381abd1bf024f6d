#!/usr/bin/env python3
"""Print the "Latest runs" lead of realizations, as their site pages render it from the evidence.

The site computes each realization's lead at build time (epldb.leads, shown on its page with the
history of its bests across runs), so no record holds it and this tool writes nothing: it prints
the paragraph, for a look before a build or for other runs than the page's:

    Bench RUN at commit SHA (copy ceiling 4253 GB/s). Best <subject> at <cells>. Elsewhere:
    <cells>. Against PREVIOUS (commit SHA) its bests moved LO (cell) to HI (cell), median MED.
    Verify RUN at commit SHA: 60/60 fp32 and 72/72 bf16 checks passed, bitwise on repeat (...).

    python3 tools/record_leads.py layernorm rmsnorm/staged        # the runs the pages show
    python3 tools/record_leads.py --bench RUN --verify RUN --previous RUN rmsnorm/staged

By default the runs are the page's (epldb.leads.Leads.pick): the newest bench run that timed the
realization (fresh rows first), the newest run that verified it, the newest earlier bench run
with a cell in common. A realization's ``when_it_wins`` says where it wins and why, never these
numbers (lint rule prose-length).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="record_leads.py", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("ids", nargs="+", metavar="ID", help="realization ids, or an operator/primitive id for all of its")
    p.add_argument("--bench", action="append", default=[], metavar="RUN",
                   help="repeatable: the bench runs to choose from (the newest that timed it)")
    p.add_argument("--verify", metavar="RUN", help="the verify run")
    p.add_argument("--previous", action="append", default=[], metavar="RUN",
                   help="repeatable: the runs to measure movement against (the newest that timed it)")
    args = p.parse_args(argv)
    root = str(Path(__file__).resolve().parent.parent)  # this checkout's epldb, installed or not
    if root not in sys.path:
        sys.path.insert(0, root)
    import epldb
    from epldb.leads import LeadError, Leads, short_commit
    from epldb.site.data import discover_runs

    try:
        catalog = epldb.load(lint=False)
        rids, unknown = catalog.select_realizations(args.ids)
        if unknown:
            raise LeadError(f"unknown id(s): {', '.join(unknown)}")
        df = catalog.evidence()
        known = set(df["run"])
        missing = [run for run in [*args.bench, *([args.verify] if args.verify else []), *args.previous]
                   if run not in known]
        if missing:
            raise LeadError(f"no evidence run named {', '.join(missing)}")
        commits = {run: short_commit(info.env.get("git_commit")) for run, info in discover_runs(catalog.root).items()}
        leads = Leads(catalog, df, commits)
        for rid in rids:
            r = catalog.realizations[rid]
            try:
                runs = leads.pick(r, benches=args.bench, verify=args.verify, previous=args.previous)
            except LeadError as exc:
                if rid in args.ids:  # named on its own: the runs must cover it
                    raise
                print(f"record_leads: skipped {exc}", file=sys.stderr)  # one of a subject's, not run
                continue
            print(f"# {rid}\n{leads.of(r, runs).text() if runs else 'No run has timed it yet.'}\n")
    except LeadError as exc:
        print(f"record_leads: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
