"""A realization's latest runs in one paragraph, computed from the evidence: what its realization
page says under "Latest runs" (the site computes it at every build) and what
``tools/record_leads.py`` prints. Nothing here writes a file.

    Bench RUN at commit SHA (copy ceiling 4253 GB/s). Best <subject> at <cells>. Elsewhere:
    <cells>. Against PREVIOUS (commit SHA) its bests moved LO (cell) to HI (cell), median MED.
    Verify RUN at commit SHA: 60/60 fp32 and 72/72 bf16 checks passed, bitwise on repeat (max_rel ...).

A cell is a dtype, the contract's other peer parameters, and a shape. "Best" lists the cells where
the realization is the fastest verified realization of its subject in the bench run (ties go to the
earlier row, as in epldb.standings), each with its runner-up and its strongest peer (the verdict
from the p10-p90 ranges, epldb.standings.verdict); "Elsewhere" its other cells, with its gap to the
best there. A draft is out of the standings: its cells are set against the best verified one.

The runs (:meth:`Leads.pick`): the newest bench run that timed the realization (fresh rows first: a
run whose rows are stale, the kernel changed since, is taken only where no fresh one exists, and the
paragraph says so), the newest run that verified it without timing (fresh first), and the newest
earlier bench run on the same device that timed it at one of the same cells. Each may be named
instead (the tool's --bench, --verify, --previous).

    text = latest_lead(catalog, evidence, catalog.realizations["rmsnorm/staged"], commits)
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.records import Realization
    from epldb.standings import Standing

DTYPE_SHORT = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "float64": "fp64"}
DTYPE_ORDER = ("float64", "float32", "float16", "bfloat16")  # where a record declares no dtype list

Cell = tuple[str, str, str]  # (dtype, the contract's other peer parameters as JSON, shape JSON)

#: The evidence columns a lead reads (``run_kind`` and ``commit`` where the table has them).
COLUMNS_READ = ("run", "subject", "kind", "params", "dtype", "shape", "status", "err_max_rel", "deterministic",
                "time_ms_median", "time_ms_p10", "time_ms_p90", "gbps", "detail", "device", "stale", "run_kind",
                "commit")


class LeadError(Exception):
    """A run named for a realization that has no rows of it (said in one plain line)."""


@dataclass(frozen=True)
class Runs:
    """The runs one paragraph is about: a bench run, and the verify and previous runs if any."""

    bench: str
    verify: str | None = None
    previous: str | None = None


@dataclass(frozen=True)
class Best:
    """A subject's fastest passing row at one cell of one run."""

    subject: str
    gbps: float
    params: dict[str, Any]
    order: int  # the row's position in the evidence: equal rates go to the earlier row
    grid: str = ""  # a resident-sized grid as the row recorded it (grid_note), else ""


def short_commit(value: object) -> str:
    """A run's recorded ``git_commit`` as seven hex digits, or "" where it recorded none that is one."""
    text = str(value or "").strip()
    return text[:7] if re.fullmatch(r"[0-9a-f]{7,40}", text) else ""


def commits_of(df: "pandas.DataFrame") -> dict[str, str]:
    """Run id → its short commit, from the evidence table's ``commit`` column (empty without one)."""
    if "commit" not in df.columns:
        return {}
    pairs = df[["run", "commit"]].drop_duplicates("run")
    return {str(run): short_commit(commit) for run, commit in zip(pairs["run"], pairs["commit"])}


def grid_note(detail: Any) -> str:
    """What a bench row's detail says of the grids sized from resident_blocks ("grid 224 of 224
    resident"; several steps joined), or "" for a fixed grid: such a figure depends on the board."""
    from epldb.bench import grids_read

    return ", ".join(f"grid {g} of {r} resident" for g, r in grids_read(detail))


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


def cell_parts(cell: Cell) -> tuple[str, str]:
    """A cell's problem and shape as the lead writes them: ('fp32 op sum', '16384 × 4096'), the
    shape as every page writes it (epldb.shapes.shape_text)."""
    from epldb.evidence.row import params_dict
    from epldb.shapes import shape_text

    dtype, problem, shape = cell
    dims = shape_text(params_dict(shape))
    extra = "".join(f" {k} {v}" for k, v in sorted(params_dict(problem).items()))
    return f"{DTYPE_SHORT.get(dtype, dtype)}{extra}", dims


def cell_label(cell: Cell) -> str:
    """'fp32 op sum 16384 × 4096'."""
    return " ".join(cell_parts(cell))


def _cell_key(cell: Cell, dtypes: list[str]) -> tuple[Any, ...]:
    from epldb.standings import _shape_order

    dtype, problem, shape = cell
    rank = dtypes.index(dtype) if dtype in dtypes else len(dtypes)
    return (rank, problem, _shape_order(shape), shape)


def _passing(df: "pandas.DataFrame") -> "pandas.Series":
    return (df["kind"] == "realization") & (df["status"] == "passed") & df["gbps"].notna()


def bests(catalog: "Catalog", run_df: "pandas.DataFrame", subject: str) -> dict[Cell, dict[str, Best]]:
    """Per cell of one run: each realization of ``subject`` with its fastest passing row."""
    from epldb.contracts import get_contract
    from epldb.evidence import canonical_json
    from epldb.evidence.row import params_dict

    ids = {r.id for r in catalog.realizations_of(subject)}
    rows = run_df[_passing(run_df) & run_df["subject"].isin(ids)]
    contracts: dict[str, Any] = {}
    out: dict[Cell, dict[str, Best]] = {}
    for order, row in enumerate(rows.itertuples(index=False)):
        sid = str(row.subject)
        if sid not in contracts:
            contracts[sid] = get_contract(catalog.contract_name_of(catalog.realizations[sid]))
        contract = contracts[sid]
        params = params_dict(row.params)
        problem = contract.peer_params(params) if contract is not None else {"dtype": row.dtype}
        dtype = str(problem.pop("dtype", row.dtype))
        cell = (dtype, canonical_json(problem), str(row.shape))
        shown = {k: v for k, v in params.items() if k != "dtype" and k not in problem}
        best = Best(sid, float(row.gbps), shown, order, grid_note(getattr(row, "detail", None)))
        here = out.setdefault(cell, {})
        if best.subject not in here or best.gbps > here[best.subject].gbps:
            here[best.subject] = best
    return out


def _fastest(candidates: list[Best]) -> Best | None:
    return max(candidates, key=lambda b: (b.gbps, -b.order)) if candidates else None


def _standings(catalog: "Catalog", run_df: "pandas.DataFrame", subject: str) -> dict[Cell, "Standing"]:
    """The run's best against its strongest peer per cell (epldb.standings, this run alone)."""
    from epldb.standings import standings

    ids = {r.id for r in catalog.realizations_of(subject)}
    frame = run_df[(run_df["kind"] != "realization") | run_df["subject"].isin(ids)].copy()
    frame["stale"] = False  # a run of the past is read as it was: kernels changed since still count
    out: dict[Cell, Standing] = {}
    for s in standings(catalog, frame, ids=[subject]):
        cell = (s.dtype, s.problem, s.shape)
        if cell not in out or s.peer.gbps > out[cell].peer.gbps:
            out[cell] = s
    return out


def verify_clause(r: "Realization", df: "pandas.DataFrame", run: str) -> str:
    """'60/60 fp32 and 72/72 bf16 checks passed, bitwise on repeat (max_rel ...)' of one run."""
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
    return f"{_and(counts)} checks passed, {repeat}{tail}"


def _newest(runs: set[str]) -> str | None:
    return max(runs) if runs else None  # run ids begin with their UTC time


def pick_runs(df: "pandas.DataFrame", rid: str, *, benches: Sequence[str] = (), verify: str | None = None,
              previous: Sequence[str] = (), shares_a_cell: Callable[[str, str], bool] | None = None) -> Runs | None:
    """The runs of :func:`lead` for realization ``rid`` (see the module's docstring); None when no
    run timed it. ``benches`` and ``previous``: the runs to choose from (the newest that timed it);
    ``verify``: the verify run. A named run without rows of it is a LeadError. The previous run
    times it at a dtype and shape of the bench run; ``shares_a_cell(earlier, bench)``, where given,
    has the last word (a cell is also the contract's other peer parameters: Leads.pick)."""
    mine = df[(df["kind"] == "realization") & (df["subject"] == rid)]
    if "run_kind" in mine.columns:
        mine = mine[mine["run_kind"] != "experiment"]  # an experiment measures another kernel than the record's
    timed = mine[_passing(mine)]
    if benches:
        bench = _newest(set(timed["run"]) & set(benches))
        if bench is None:
            raise LeadError(f"{rid}: none of the bench runs {', '.join(benches)} has a passing timed row of it")
    else:
        bench = _newest(set(timed[~timed["stale"].astype(bool)]["run"])) or _newest(set(timed["run"]))
        if bench is None:
            return None
    if verify is None:
        untimed = set(mine["run"]) - set(mine[mine["gbps"].notna()]["run"])
        fresh = set(mine[~mine["stale"].astype(bool)]["run"]) & untimed
        verify = _newest(fresh) or _newest(untimed)
    elif not (mine["run"] == verify).any():
        raise LeadError(f"{rid}: verify run {verify} has no rows for it")
    device = set(timed[timed["run"] == bench]["device"])
    here = timed[timed["run"] == bench]
    cells = set(zip(here["dtype"], here["shape"]))
    earlier = timed[(timed["run"] < bench) & timed["device"].isin(device)]
    if previous:
        earlier = earlier[earlier["run"].isin(set(previous))]
    shared = {run for run, d, s in zip(earlier["run"], earlier["dtype"], earlier["shape"]) if (d, s) in cells}
    before = next((run for run in sorted(shared, reverse=True)  # run ids begin with their UTC time
                   if shares_a_cell is None or shares_a_cell(run, bench)), None)
    return Runs(bench, verify, before)


def _at(run: str, commits: Mapping[str, str]) -> str:
    sha = commits.get(run, "")
    return f"commit {sha}" if sha else "an unrecorded commit"


@dataclass(frozen=True)
class CellLead:
    """The realization at one cell of the bench run."""

    cell: Cell
    gbps: float
    best: bool  # the fastest verified realization of its subject at this cell
    point: str  # its best row's parameters ("block 256, items 4") and a resident-sized grid's note
    of_copy: float | None = None  # of the run's copy ceiling (only where best)
    of_at_size: float | None = None  # of the run's size-matched reference (only where best)
    other: Best | None = None  # best: the runner-up; else the fastest verified one there
    peer: "Standing | None" = None  # best: its strongest peer of the run
    moved: float | None = None  # its rate over its rate in the previous run, at this cell

    @property
    def label(self) -> str:
        return cell_label(self.cell)

    def standing(self) -> str:
        """'+0.5% over smem-tree (722)' where best; '-9.5% to welford-reread-fixed-cols' elsewhere."""
        if self.other is None:
            return ""
        if self.best:
            return f"{_pct(self.gbps / self.other.gbps)} over {_short(self.other.subject)} ({self.other.gbps:.0f})"
        return f"{_pct(self.gbps / self.other.gbps)} to {_short(self.other.subject)}"

    def against_peer(self) -> str:
        s = self.peer
        return f"{_pct(1.0 + s.margin)} against {_short(s.peer.subject)} ({s.peer.gbps:.0f}, {s.verdict})" if s else ""


@dataclass(frozen=True)
class Lead:
    """A realization's standing in one bench run, its movement since the previous, its verification."""

    realization: str
    subject: str
    verified: bool  # its status: a draft is out of the standings
    runs: Runs
    commits: dict[str, str]  # the runs' short commits ("" unrecorded)
    copy_gbps: float | None
    at_size: str  # the name of the size-matched reference ("read-at-size", "copy-at-size")
    stale: bool  # its rows in the bench run measured a kernel that has changed since
    cells: tuple[CellLead, ...]
    verify: str | None  # verify_clause of runs.verify

    def head(self) -> str:
        bench = self.runs.bench
        text = f"Bench {bench} at {_at(bench, self.commits)}"
        text += f" (copy ceiling {self.copy_gbps:.0f} GB/s)" if self.copy_gbps else ""
        return text + ("; its kernel has changed since, so these rows are stale." if self.stale else ".")

    def movement(self) -> str:
        moved = [(c.moved, c.cell) for c in self.cells if c.moved is not None]
        if not moved or self.runs.previous is None:
            return ""
        lo = min(moved, key=lambda m: m[0])
        hi = max(moved, key=lambda m: m[0])
        med = statistics.median_high(m[0] for m in moved)  # of an even count, the upper middle
        against = f"Against {self.runs.previous} ({_at(self.runs.previous, self.commits)})"
        if len(moved) == 1:
            return f"{against} its best moved {_pct(lo[0])} ({cell_label(lo[1])})."
        return (f"{against} its bests moved {_pct(lo[0])} ({cell_label(lo[1])}) to "
                f"{_pct(hi[0])} ({cell_label(hi[1])}), median {_pct(med)}.")

    def verification(self) -> str:
        if self.runs.verify is None or self.verify is None:
            return ""
        return f"Verify {self.runs.verify} at {_at(self.runs.verify, self.commits)}: {self.verify}."

    def cells_text(self) -> str:
        won = []
        for c in self.cells:
            if not c.best:
                continue
            shares = [f"{c.of_copy:.2f} of copy"] if c.of_copy is not None else []
            if c.of_at_size is not None:
                shares.append(f"{c.of_at_size:.2f} of {self.at_size}")
            inner = "; ".join(x for x in (", ".join(shares), c.point) if x)
            won.append(", ".join(x for x in (f"{c.label} {c.gbps:.0f} GB/s" + (f" ({inner})" if inner else ""),
                                              c.standing(), c.against_peer()) if x))
        elsewhere = [f"{c.label} {c.gbps:.0f} ({c.standing()})" for c in self.cells if not c.best and c.other]
        if not self.cells:
            return "No passing timed row of it in this run."
        if not self.verified:
            return (f"A draft, out of the standings; against the best verified {self.subject}: "
                    + ("; ".join(elsewhere) if elsewhere else "no verified one timed at its cells") + ".")
        text = f"Best {self.subject} at " + "; ".join(won) + "." if won else f"The best {self.subject} nowhere."
        return text + (" Elsewhere: " + "; ".join(elsewhere) + "." if elsewhere else "")

    def summary(self) -> str:
        """The paragraph without its cells (a page shows them as a table)."""
        draft = "" if self.verified else f"A draft, out of the standings: set against the best verified {self.subject}."
        return " ".join(x for x in (self.head(), draft, self.movement(), self.verification()) if x)

    def text(self) -> str:
        """The whole paragraph, as the module's docstring shows it."""
        return " ".join(x for x in (self.head(), self.cells_text(), self.movement(), self.verification()) if x)


class Leads:
    """Leads of many realizations over one evidence frame, each run's rows and each subject's bests
    in a run computed once (a subject's realizations mostly share their bench runs)."""

    def __init__(self, catalog: "Catalog", df: "pandas.DataFrame", commits: Mapping[str, str] | None = None) -> None:
        self.catalog = catalog
        # The columns read here, once: every later filter copies fewer of them (no attrs to copy either).
        self.df = df[[c for c in COLUMNS_READ if c in df.columns]].copy()
        self.df.attrs = {}
        self._mine: dict[str, pandas.DataFrame] | None = None
        self.commits = {**commits_of(df), **{k: v for k, v in (commits or {}).items() if v}}
        self._runs: dict[str, pandas.DataFrame] = {}
        self._bests: dict[tuple[str, str], dict[Cell, dict[str, Best]]] = {}
        self._standings: dict[tuple[str, str], dict[Cell, Standing]] = {}

    def rows_of(self, rid: str) -> "pandas.DataFrame":
        """The realization's own rows (one grouping of the table for all of them)."""
        if self._mine is None:
            real = self.df[self.df["kind"] == "realization"]
            self._mine = {str(k): v for k, v in real.groupby("subject", sort=False)}
        return self._mine.get(rid, self.df.iloc[:0])

    def run(self, run: str) -> "pandas.DataFrame":
        """One run's rows (one grouping of the table for all runs)."""
        if not self._runs:
            self._runs = {str(k): v for k, v in self.df.groupby("run", sort=False)}
        return self._runs.get(run, self.df.iloc[:0])

    def bests(self, run: str, subject: str) -> dict[Cell, dict[str, Best]]:
        if (run, subject) not in self._bests:
            self._bests[(run, subject)] = bests(self.catalog, self.run(run), subject)
        return self._bests[(run, subject)]

    def standings(self, run: str, subject: str) -> dict[Cell, "Standing"]:
        if (run, subject) not in self._standings:
            self._standings[(run, subject)] = _standings(self.catalog, self.run(run), subject)
        return self._standings[(run, subject)]

    def pick(self, r: "Realization", *, benches: Sequence[str] = (), verify: str | None = None,
             previous: Sequence[str] = ()) -> Runs | None:
        """:func:`pick_runs`, the previous run sharing a cell of the bench run's."""

        def shares_a_cell(earlier: str, bench: str) -> bool:
            now = self.bests(bench, r.subject)
            return any(r.id in here and r.id in now.get(cell, {}) for cell, here in self.bests(earlier, r.subject).items())

        return pick_runs(self.rows_of(r.id), r.id, benches=benches, verify=verify, previous=previous,
                         shares_a_cell=shares_a_cell)

    def latest(self, r: "Realization") -> Lead | None:
        """The lead of the runs :meth:`pick` picks; None when no run timed ``r``."""
        runs = self.pick(r)
        return self.of(r, runs) if runs is not None else None

    def of(self, r: "Realization", runs: Runs) -> Lead:
        from epldb.contracts import get_contract
        from epldb.records import param_text

        run_df = self.run(runs.bench)
        copy = run_df[(run_df["kind"] == "ceiling") & (run_df["subject"] == "ceiling/copy")]["gbps"].dropna()
        copy_gbps = float(copy.iloc[0]) if len(copy) else None
        own = run_df[(run_df["kind"] == "realization") & (run_df["subject"] == r.id)]
        contract = get_contract(self.catalog.contract_name_of(r))
        verified = {x.id for x in self.catalog.realizations_of(r.subject) if x.status == "verified"}
        table = self.bests(runs.bench, r.subject)
        before = self.bests(runs.previous, r.subject) if runs.previous is not None else {}
        dtypes = _dtypes(r, {c[0] for c in table})
        versus = self.standings(runs.bench, r.subject)
        cells: list[CellLead] = []
        for cell in sorted((c for c in table if r.id in table[c]), key=lambda c: _cell_key(c, dtypes)):
            me = table[cell][r.id]
            top = _fastest([b for s, b in table[cell].items() if s in verified])
            then = before.get(cell, {}).get(r.id)
            moved = me.gbps / then.gbps if then is not None else None
            point = ", ".join([f"{k} {param_text(v)}" for k, v in sorted(me.params.items())] + ([me.grid] if me.grid else []))
            if r.status == "verified" and top is not None and top.subject == r.id:
                s = versus.get(cell)
                cells.append(CellLead(
                    cell, me.gbps, True, point, me.gbps / copy_gbps if copy_gbps else None,
                    s.of_at_size if s is not None else None,
                    _fastest([b for sub, b in table[cell].items() if sub in verified and sub != r.id]), s, moved))
            else:
                cells.append(CellLead(cell, me.gbps, False, point, other=top, moved=moved))
        wanted = {runs.bench, runs.verify, runs.previous} - {None}
        return Lead(r.id, r.subject, r.status == "verified", runs,
                    {run: self.commits.get(run, "") for run in sorted(wanted)},  # type: ignore[type-var]
                    copy_gbps, f"{contract.ceiling}-at-size" if contract is not None else "at-size",
                    bool(own["stale"].astype(bool).any()), tuple(cells),
                    verify_clause(r, self.rows_of(r.id), runs.verify) if runs.verify is not None else None)


def lead(catalog: "Catalog", df: "pandas.DataFrame", r: "Realization", runs: Runs,
         commits: Mapping[str, str] | None = None) -> str:
    """The paragraph for ``r`` of ``runs`` (``commits``: run id → short commit, :func:`short_commit`)."""
    return Leads(catalog, df, commits).of(r, runs).text()


def latest_lead(catalog: "Catalog", df: "pandas.DataFrame", r: "Realization",
                commits: Mapping[str, str] | None = None) -> str | None:
    """:func:`lead` of the runs :meth:`Leads.pick` picks; None when no run timed ``r``."""
    found = Leads(catalog, df, commits).latest(r)
    return found.text() if found is not None else None
