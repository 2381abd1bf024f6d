"""What the site is generated from: the catalog, static builds and measured evidence, gathered once.

Static builds (``epldb.compile``) and evidence (``epldb.evidence``) are imported lazily; while a room
is not installed, or fails, the site says so on the pages instead of failing: a problem becomes a
``notes`` line and the pages show "no evidence yet" / "not compiled".
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.catalog import Catalog
from epldb.evidence.row import params_dict
from epldb.records import point_text
from epldb.shapes import shape_text

if TYPE_CHECKING:
    import pandas as pd

#: Text columns of the normalized evidence held as categories (see ``normalize_evidence``).
CATEGORICAL = ("run", "subject", "kind", "dtype", "shape", "device", "utc", "status", "target", "primitive",
               "variant", "knobs_label", "params_label", "shape_label", "subject_label")

#: Statuses of a verification that passed (the runner writes one of these).
PASSING = {"pass", "passed", "ok"}


@dataclass
class RunInfo:
    """One evidence run: its device folder, sealed file and environment record."""

    run: str
    device: str
    path: Path
    env: dict[str, Any] = field(default_factory=dict)

    @property
    def utc(self) -> str:
        for key in ("utc", "utc_time", "time_utc", "timestamp", "time", "date"):
            value = self.env.get(key)
            if isinstance(value, str) and value:
                return value
        return ""


@dataclass
class SiteData:
    catalog: Catalog
    #: (realization id, target) → the build, or a sentence saying why there is none.
    builds: dict[tuple[str, str], Any] = field(default_factory=dict)
    #: measured rows, normalized by ``normalize_evidence``; None when there is no evidence at all.
    evidence: "pd.DataFrame | None" = None
    runs: dict[str, RunInfo] = field(default_factory=dict)
    #: why a part is missing (shown on the evidence-status page).
    notes: list[str] = field(default_factory=list)

    def build(self, realization_id: str, target: str) -> Any:
        return self.builds.get((realization_id, target))

    def has_evidence(self) -> bool:
        return self.evidence is not None and not self.evidence.empty


EvidenceLoader = Callable[[Path], "pd.DataFrame"]


def gather(catalog: Catalog, *, compile: bool = True, evidence_loader: EvidenceLoader | None = None,
           progress: Callable[[str], None] | None = None) -> SiteData:
    """Collect builds and evidence for every realization of ``catalog``."""
    data = SiteData(catalog)
    if compile:
        _gather_builds(data, progress)
    else:
        data.notes.append("static builds were skipped (--no-compile)")
    data.runs = discover_runs(catalog.root)
    _gather_evidence(data, evidence_loader)
    if progress:
        rows = 0 if data.evidence is None else len(data.evidence)
        progress(f"evidence: {rows} rows of {len(data.runs)} runs")
    return data


def _gather_builds(data: SiteData, progress: Callable[[str], None] | None) -> None:
    """Static facts from the committed evidence (evidence/static/) where they describe today's kernel;
    NVRTC only for the (realization, target) pairs whose facts are stale or missing."""
    try:
        from epldb.evidence.freshness import current_hashes
        from epldb.evidence.row import canonical_json
        from epldb.evidence.static import build_from_facts, load_facts
        from epldb.validate_deep import compile_all
    except ImportError as exc:
        data.notes.append(f"static builds are not available: epldb.compile cannot be imported ({exc})")
        return
    jobs = [(r, t) for r in data.catalog.realizations.values() for t in r.targets]
    facts = load_facts(data.catalog.root)
    hashes = current_hashes(data.catalog.root, data.catalog)
    stale = []
    for r, target in jobs:
        # Today's points only: facts of one source hash may also hold points a parameter space has
        # since dropped or renamed (gemm/tma-wgmma's {bn, stages} before it had bm).
        wanted = {canonical_json(p) for p in r.points()}
        rows = list({(row["entry"], row["point"]): row for row in facts.of(r.id, target, hashes[r.id])
                     if row["point"] in wanted}.values())
        if rows and len(rows) == len(wanted) * len(r.kernel.entries):
            data.builds[(r.id, target)] = build_from_facts(r, target, rows)
        else:
            stale.append((r, target))
    if progress:
        progress(f"static facts: {len(jobs) - len(stale)} of {len(jobs)} (realization, target) builds from "
                 f"evidence/static/" + (f"; compiling {len(stale)} whose facts are stale or missing "
                                        "(`epldb compile --record` commits them)" if stale else ""))
    if not stale:
        return
    try:
        builds: list[Any] = compile_all(data.catalog.root, stale)  # threaded, as `epldb validate`
    except Exception as exc:  # a compile-room bug must not take the whole site down
        builds = [f"compilation raised {type(exc).__name__}: {exc}"] * len(stale)
    for (r, target), build in zip(stale, builds, strict=True):
        data.builds[(r.id, target)] = build


def discover_runs(root: Path) -> dict[str, RunInfo]:
    """Every sealed run (``evidence/<device>/<run>.parquet``, experiments' too) with its
    ``<run>.env.json`` (when present)."""
    from epldb.evidence import run_files
    from epldb.evidence.store import device_of

    runs: dict[str, RunInfo] = {}
    for path in run_files(root):
        run = path.stem
        env: dict[str, Any] = {}
        env_path = path.with_name(f"{run}.env.json")
        if env_path.is_file():
            try:
                loaded = json.loads(env_path.read_text(encoding="utf-8"))
                env = loaded if isinstance(loaded, dict) else {"environment": loaded}
            except (OSError, ValueError) as exc:
                env = {"unreadable": f"{env_path.name}: {exc}"}
        runs[run] = RunInfo(run, device_of(path), path, env)
    return runs


def _gather_evidence(data: SiteData, loader: EvidenceLoader | None) -> None:
    if loader is None:
        try:
            from epldb.evidence import load_evidence
        except ImportError:
            if data.runs:
                data.notes.append("evidence files exist but epldb.evidence cannot be imported")
            return
        loader = load_evidence
    try:
        frame = loader(data.catalog.root)
    except Exception as exc:  # the evidence room's bug or a malformed file: show, don't fail
        data.notes.append(f"evidence could not be loaded: {type(exc).__name__}: {exc}")
        return
    if frame is None or len(frame) == 0:
        return
    data.evidence = normalize_evidence(frame, data.runs, data.catalog)


# --- normalization ---------------------------------------------------------------------------


def shape_elements(shape: object) -> int:
    """Element count of a shape written as '4096x8192', '[4096, 8192]', '(16777216,)' or '1048576'."""
    numbers = [int(n) for n in re.findall(r"\d+", str(shape))]
    if not numbers:
        return 0
    return math.prod(numbers)


def params_label(params: object) -> str:
    """'{"block": 256, "items": 4}' → 'block=256 items=4' (anything else as written)."""
    if isinstance(params, str):
        try:
            params = json.loads(params) if params.strip() else {}
        except ValueError:
            return params
    if isinstance(params, dict):
        return point_text(params)
    if params is None or (isinstance(params, float) and math.isnan(params)):
        return ""
    return str(params)


def shape_label(shape: object) -> str:
    """A row's shape as every page writes it (epldb.shapes.shape_text): '{"cols":16384,"rows":4096}' →
    '4096 × 16384', '{"n":3000017}' → 'n = 3,000,017'."""
    return shape_text(shape)


def variant_of(params: object, problem: object = None) -> str:
    """The problem variant a row measures: the string-valued parameters other than dtype of its
    problem ('op=sum'). ``problem`` is the part of the parameters that defines the problem (a
    contract's peer_params); without it, every parameter may. Numbers and booleans are tuning knobs
    (block, items, stages), not the problem; so are strings outside the problem (a realization's
    choice of operator policy)."""
    named = params_dict(params if problem is None else problem)
    keep = [(k, v) for k, v in sorted(named.items())
            if isinstance(v, str) and k not in ("dtype", "primitive", "contract")]
    return " ".join(f"{k}={v}" for k, v in keep)


def knobs_label(params: object, problem: object = None) -> str:
    """The tuning knobs of a row (its parameters minus dtype and the problem variant):
    'block=256 items=4', 'group=32 policy=SoftmaxRow'."""
    named = params_dict(params)
    variant = params_dict(params if problem is None else problem)
    keep = [(k, v) for k, v in named.items()
            if k not in ("primitive", "contract", "dtype") and not (isinstance(v, str) and k in variant)]
    return " ".join(f"{k}={v}" for k, v in keep)


def _problem_labels(df: "pd.DataFrame", catalog: Catalog) -> tuple[list[str], list[str]]:
    """Per row, its problem variant and tuning knobs (:func:`variant_of`, :func:`knobs_label`). The
    parameters that define a row's problem are its contract's peer_params for a realization row whose
    realization and contract are known, else all of them. Computed once per (subject, params)."""
    from epldb.contracts import get_contract

    contracts: dict[str, Any] = {}
    memo: dict[tuple[str, str], tuple[str, str]] = {}
    variants: list[str] = []
    knobs: list[str] = []
    for kind, subject, params in zip(df["kind"], df["subject"], df["params"]):
        r = catalog.realizations.get(subject) if kind == "realization" else None
        key = (subject if r is not None else "", params if isinstance(params, str) else repr(params))
        if key not in memo:
            problem = None
            if r is not None:
                if subject not in contracts:
                    contracts[subject] = get_contract(catalog.contract_name_of(r))
                contract = contracts[subject]
                problem = contract.peer_params(params_dict(params)) if contract is not None else None
            memo[key] = (variant_of(params, problem), knobs_label(params, problem))
        variants.append(memo[key][0])
        knobs.append(memo[key][1])
    return variants, knobs


#: How far above the same run's fastest peer at its own shape a rate ceiling may lie (the rate
#: ceiling is cuBLAS at that shape, so the run's cuBLAS peer there checks it).
CEILING_OVER_PEER = 1.5


def unchecked_rate_runs(df: "pd.DataFrame") -> set[str]:
    """Runs whose rate ceiling (a ceiling row in GFLOP/s) lies far above the same run's fastest peer
    at its shape (a run with no peer there is taken as it is): H100 runs 20261207T010021Z-bench-5f8d and
    20261207T010155Z-bench-b7d5 timed 8192^3 in 0.0016 ms (epldb/bench.py, measure_mma_bf16)."""
    ceil = df[(df["kind"] == "ceiling") & df["gflops"].notna()]
    if ceil.empty:
        return set()
    peers = df[(df["kind"] == "peer") & df["gflops"].notna()]
    fastest = peers.groupby(["run", "shape"])["gflops"].max().to_dict()
    return {str(r) for r, s, v in zip(ceil["run"], ceil["shape"], ceil["gflops"])
            if not float(v) <= CEILING_OVER_PEER * fastest.get((r, s), float("inf"))}  # NaN fails


def normalize_evidence(frame: "pd.DataFrame", runs: dict[str, RunInfo], catalog: Catalog) -> "pd.DataFrame":
    """Add the columns the pages use: device, utc, elements, params_label, ceiling_gbps, primitive,
    passed, fresh. Missing optional columns are added empty so every page can rely on them."""
    import pandas as pd

    # The pages select rows thousands of times and iterate cells: the typed shape and parameter
    # columns of the tidy table are not needed here; text columns become plain Python objects (pandas
    # 3 would keep them Arrow-backed, whose take and iteration cost several times more); and the
    # frame's attrs are dropped, since pandas deep-copies them into every selection.
    typed = [*frame.attrs.get("SHAPE_FIELDS", []), *frame.attrs.get("PARAM_FIELDS", [])]
    df = frame.drop(columns=[c for c in typed if c in frame.columns])
    df.attrs = {}
    for col in ("run", "subject", "kind", "params", "dtype", "shape", "status", "err_max_rel", "err_rel_l2",
                "deterministic", "time_ms_median", "time_ms_p10", "time_ms_p90", "gbps", "gflops", "frac_ceiling",
                "target", "nvrtc", "source_hash", "detail"):
        if col not in df.columns:
            df[col] = None
    if "stale" not in df.columns:
        df["stale"] = False
    df["stale"] = df["stale"].fillna(False).astype(bool)
    for col, empty in (("run", ""), ("subject", ""), ("kind", "realization"), ("shape", ""), ("dtype", "")):
        df[col] = _text(df[col], empty)
    if "device" not in df.columns:
        df["device"] = [runs[r].device if r in runs else "unknown-device" for r in df["run"]]
    df["device"] = _text(df["device"], "unknown-device")
    for col in ("gbps", "gflops", "frac_ceiling", "err_max_rel", "err_rel_l2", "time_ms_median", "time_ms_p10",
                "time_ms_p90"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("float64")
    df = df.astype({c: object for c in df.columns
                    if not pd.api.types.is_float_dtype(df[c]) and c != "stale"})
    utc = {r: info.utc for r, info in runs.items()}
    df["utc"] = [utc.get(r, "") for r in df["run"]]
    df["elements"] = pd.Series(_per_value(df["shape"], shape_elements), index=df.index, dtype="int64")
    df["shape_label"] = _per_value(df["shape"], shape_label)
    df["params_label"] = _per_value(df["params"], params_label)
    df["variant"], df["knobs_label"] = _problem_labels(df, catalog)
    # A rate ceiling that timed nothing makes every fraction of its run a thousandth of the truth and
    # the bandwidth it implies a thousand times too high: those rows keep their times, not fractions.
    bad = unchecked_rate_runs(df)
    if bad:
        df.loc[df["run"].isin(bad) & df["gflops"].notna() & (df["kind"] != "ceiling"), "frac_ceiling"] = float("nan")
    ceiling = df["gbps"] / df["frac_ceiling"]
    df["ceiling_gbps"] = ceiling.where((df["frac_ceiling"] > 0) & df["gbps"].notna())
    df["passed"] = pd.Series(_per_value(df["status"], lambda s: str(s).strip().lower() in PASSING), index=df.index,
                             dtype=bool)
    df["fresh"] = ~df["stale"]
    df["primitive"] = pd.Series(_row_primitives(df, catalog), index=df.index, dtype=object)
    df["subject_label"] = [_subject_label(s, k) for s, k in zip(df["subject"], df["kind"])]
    df["timed"] = df["gbps"].notna()
    # Few distinct values over many rows: as categories, the thousands of selections the pages make
    # compare integer codes instead of Python strings (ordered as the strings are).
    df = df.astype({c: pd.CategoricalDtype(sorted(set(df[c])), ordered=True) for c in CATEGORICAL})
    return df.sort_values(["utc", "run"], kind="stable").reset_index(drop=True)


def _text(column: "pd.Series", empty: str) -> "pd.Series":
    """A text column as plain Python strings, missing cells as ``empty``."""
    import pandas as pd

    out = column.astype(object).where(column.notna(), empty)
    if not isinstance(column.dtype, pd.StringDtype):  # cells of any type: spelled as text
        out = out.map(str).astype(object)
    return out


def _per_value(column: "pd.Series", fn: Callable[[Any], Any]) -> list[Any]:
    """``fn`` of each cell, computed once per distinct value (evidence repeats a few thousand values
    over 150k rows)."""
    memo: dict[Any, Any] = {}
    out = []
    for v in column:
        key = v if isinstance(v, str) else repr(v)
        if key not in memo:
            memo[key] = fn(v)
        out.append(memo[key])
    return out


def _subject_label(subject: str, kind: str) -> str:
    """'block-tile-reduce/torch-eager' (peer) → 'torch-eager'; 'ceiling/read' → 'read'."""
    if kind in ("peer", "ceiling") and "/" in subject:
        return subject.split("/", 1)[1]
    return subject


def _row_primitives(df: "pd.DataFrame", catalog: Catalog) -> list[str]:
    """The subject (primitive, or operator for an operator realization) each row is evidence for; the
    column is called 'primitive' for history. Realization rows: the id's first part. Peer and
    ceiling rows: a 'primitive' or 'contract' named in their params or as their subject's first part
    ('block-tile-reduce/torch-eager') when one primitive has that contract (else one operator, a
    contract shared with a primitive going to the primitive), else the one subject whose
    realizations the same run measured (peers run beside the realizations they are compared with);
    '' when that is ambiguous."""
    by_contract: dict[str, list[str]] = {}
    for p in catalog.primitives.values():
        if p.contract:
            by_contract.setdefault(p.contract, []).append(p.id)
    contract_of = {c: ids[0] for c, ids in by_contract.items() if len(ids) == 1}
    by_operator_contract: dict[str, list[str]] = {}
    for o in catalog.operators.values():
        if o.contract and o.contract not in by_contract:
            by_operator_contract.setdefault(o.contract, []).append(o.id)
    contract_of.update({c: ids[0] for c, ids in by_operator_contract.items() if len(ids) == 1})
    per_run: dict[str, set[str]] = {}
    for run, kind, subject in zip(df["run"], df["kind"], df["subject"]):
        if kind == "realization" and "/" in subject:
            per_run.setdefault(run, set()).add(subject.split("/", 1)[0])
    out: list[str] = []
    parsed: dict[str, dict[str, Any]] = {}
    for run, kind, subject, params in zip(df["run"], df["kind"], df["subject"], df["params"]):
        if kind == "realization":
            out.append(subject.split("/", 1)[0])
            continue
        if kind == "sanitizer":  # a realization's status under a tool: no figure of the primitive's
            out.append("")
            continue
        key = params if isinstance(params, str) else repr(params)
        if key not in parsed:
            parsed[key] = params_dict(params)
        named = parsed[key]
        prefix = subject.split("/", 1)[0] if "/" in subject else ""
        if isinstance(named.get("primitive"), str):
            out.append(named["primitive"])
        elif isinstance(named.get("contract"), str) and named["contract"] in contract_of:
            out.append(contract_of[named["contract"]])
        elif prefix in contract_of:
            out.append(contract_of[prefix])
        elif len(per_run.get(run, ())) == 1:
            out.append(next(iter(per_run[run])))
        else:
            out.append("")
    return out
