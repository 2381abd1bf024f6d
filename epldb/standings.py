"""Standings: the best realization of each problem against every peer, read from the committed
evidence, one bench run at a time.

A comparison is only made inside one run: the peers, the clocks and the memory system's mood move
between runs (the read ceiling of two runs of the same code differed by 1.5%), so a realization's
rate from one run against a peer's from another says nothing a bar can rest on. For each device,
contract, problem (the contract's peer parameters: dtype, and op or tile where the contract has
them) and shape, the run compared is the newest that timed a peer and every selected realization
that any such run timed there (fresh, passing rows): a run that timed only some of them, such as
one that benched a new realization beside the peers, does not displace a fuller run's best. Where
no run timed them all, the newest run with both sides is compared, and its standing says it is
partial. The best realization there is the fastest row of any selected realization at any
point; each peer is set against it. A margin decides nothing while the two timings' p10-p90 ranges
overlap: the verdict is then ``level``, and ``ahead`` or ``behind`` only when they do not. The best
is also set against the memory roofline of its run: the copy ceiling (bytes read plus written by a
device-to-device copy) that the same run measured, where it measured one.

    rows = standings(catalog, load_evidence(catalog=catalog), ids=["softmax"])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from epldb.evidence import canonical_json

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog


@dataclass(frozen=True)
class Timed:
    """One timed evidence row: who, at which parameters, how fast."""

    subject: str
    params: str  # canonical JSON
    gbps: float
    median_ms: float
    p10_ms: float
    p90_ms: float


# The lab's memory-roofline bar: a best realization at or above this share of its run's copy ceiling.
COPY_SHARE = 0.9


@dataclass(frozen=True)
class Standing:
    device: str
    run: str
    contract: str
    dtype: str
    problem: str  # the contract's peer parameters other than dtype, canonical JSON ('{}' if none)
    shape: str  # canonical JSON, as in the evidence
    best: Timed  # the fastest selected realization row of the run at this problem and shape
    peer: Timed
    margin: float  # best.gbps / peer.gbps - 1
    verdict: str  # 'ahead' | 'behind' | 'level' (p10-p90 ranges overlap)
    copy_gbps: float | None = None  # the run's copy ceiling (None: the run measured none)
    # The run's size-matched reference of the contract's ceiling at the best's bytes moved
    # ('read-at-size' or 'copy-at-size', epldb/bench.py; None: the run measured none at this size).
    at_size_gbps: float | None = None
    # The run timed every selected realization that any run with a peer timed at this problem and
    # shape (False: the newest run with both sides, where no run timed them all).
    complete: bool = True

    @property
    def of_copy(self) -> float | None:
        """The best realization's rate as a share of its run's copy ceiling."""
        return self.best.gbps / self.copy_gbps if self.copy_gbps else None

    @property
    def of_at_size(self) -> float | None:
        """The best realization's rate as a share of what the same bytes reach in one plain read
        or copy of that size, in the same run."""
        return self.best.gbps / self.at_size_gbps if self.at_size_gbps else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "of_copy": self.of_copy, "of_at_size": self.of_at_size}


def verdict(best: Timed, peer: Timed) -> str:
    """'ahead' when best's slowest decile (p90 time) beats the peer's fastest (p10), 'behind' in the
    mirror case, else 'level'."""
    if best.p90_ms < peer.p10_ms:
        return "ahead"
    if best.p10_ms > peer.p90_ms:
        return "behind"
    return "level"


def _timed(row: Any) -> Timed:
    median = float(row.time_ms_median)
    p10 = float(row.time_ms_p10) if row.time_ms_p10 == row.time_ms_p10 else median  # NaN: no spread recorded
    p90 = float(row.time_ms_p90) if row.time_ms_p90 == row.time_ms_p90 else median
    return Timed(str(row.subject), str(row.params), float(row.gbps), median, p10, p90)


def standings(catalog: "Catalog", df: "pandas.DataFrame", *, ids: Sequence[str] = (),
              drafts: bool = False) -> list[Standing]:
    """Best realization against each peer, per (device, contract, problem, shape), in the newest run
    holding both sides and every realization that such runs timed there (else the newest holding both). ``ids``: realization, primitive or operator ids (default: all); ``drafts``: let
    draft realizations compete (by default only ``verified`` ones do)."""
    from epldb.contracts import get_contract
    from epldb.evidence.row import params_dict

    chosen = set(catalog.select_realizations(ids)[0] if ids else catalog.realizations)
    timed = df[df["gbps"].notna() & (df["status"] == "passed") & ~df["stale"].astype(bool)]
    # (device, run, contract, problem json with dtype, shape) -> best realization / peers
    best: dict[tuple[str, str, str, str, str], Timed] = {}
    timed_by: dict[tuple[str, str, str, str, str], set[str]] = {}  # the realizations each key's run timed
    peers: dict[tuple[str, str, str, str, str], dict[str, Timed]] = {}
    contracts: dict[str, Any] = {}
    wanted_contracts: set[str] = set()
    for row in timed[timed["kind"] == "realization"].itertuples(index=False):
        r = catalog.realizations.get(str(row.subject))
        if r is None or r.id not in chosen or (r.status != "verified" and not drafts):
            continue
        name = catalog.contract_name_of(r)
        if name not in contracts:
            contracts[name] = get_contract(name) if name else None
        contract = contracts[name]
        if contract is None:
            continue
        wanted_contracts.add(str(name))
        problem = canonical_json(contract.peer_params(params_dict(row.params)))
        key = (str(row.device), str(row.run), str(name), problem, str(row.shape))
        t = _timed(row)
        timed_by.setdefault(key, set()).add(r.id)
        if key not in best or t.gbps > best[key].gbps:
            best[key] = t
    for row in timed[timed["kind"] == "peer"].itertuples(index=False):
        name, _, _peer = str(row.subject).partition("/")
        if name not in wanted_contracts:
            continue
        key = (str(row.device), str(row.run), name, canonical_json(params_dict(row.params)), str(row.shape))
        peers.setdefault(key, {})[str(row.subject)] = _timed(row)
    copy = {(str(r.device), str(r.run)): float(r.gbps)
            for r in timed[(timed["kind"] == "ceiling") & (timed["subject"] == "ceiling/copy")].itertuples(index=False)}
    # (device, run, 'read' | 'copy') -> [(bytes, GB/s)] of the run's size-matched references
    at_size: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for r in timed[(timed["kind"] == "ceiling") & timed["subject"].str.endswith("-at-size")].itertuples(index=False):
        kind = str(r.subject).removeprefix("ceiling/").removesuffix("-at-size")
        at_size.setdefault((str(r.device), str(r.run), kind), []).append(
            (int(params_dict(r.shape).get("bytes", 0)), float(r.gbps)))

    def reference(device: str, run: str, name: str, b: Timed) -> float | None:
        """The run's reference at the bytes the best row moved (its GB/s times its median time,
        equal to the reference's bytes up to their rounding to 16 and the evidence's six digits: within 1e-5)."""
        contract = contracts.get(name)
        if contract is None:
            return None
        moved = b.gbps * b.median_ms * 1e6
        near = [(abs(n - moved), g) for n, g in at_size.get((device, run, contract.ceiling), [])
                if abs(n - moved) <= 32 + 1e-5 * moved]
        return min(near)[1] if near else None

    # per (device, contract, problem, shape): the runs with both sides, the realizations each timed
    runs: dict[tuple[str, str, str, str], dict[str, set[str]]] = {}
    for (device, run, name, problem, shape), subjects in timed_by.items():
        if (device, run, name, problem, shape) in peers:
            runs.setdefault((device, name, problem, shape), {})[run] = subjects
    out: list[Standing] = []
    for (device, name, problem, shape), by_run in runs.items():
        everyone = set().union(*by_run.values())
        full = [r for r, subjects in by_run.items() if subjects == everyone]
        run = max(full) if full else max(by_run)
        key = (device, run, name, problem, shape)
        b = best[key]
        named = params_dict(problem)
        dtype = str(named.pop("dtype", ""))
        for subject, p in sorted(peers[key].items()):
            out.append(Standing(device, run, name, dtype, canonical_json(named), shape, b, p,
                                b.gbps / p.gbps - 1.0, verdict(b, p), copy.get((device, run)),
                                reference(device, run, name, b), bool(full)))
    out.sort(key=lambda s: (s.device, s.contract, s.dtype, s.problem, _shape_order(s.shape), s.peer.subject))
    return out


def _shape_order(shape: str) -> tuple[int, ...]:
    from epldb.evidence.row import params_dict

    named = params_dict(shape)
    return tuple(int(named[k]) for k in ("n", "cols", "rows") if k in named and str(named[k]).isdigit())


@dataclass(frozen=True)
class Tally:
    """Per (device, contract, dtype, problem): at how many shapes the best realization is ahead of,
    level with, or behind its strongest peer (the peer with the highest rate there)."""

    shapes: int
    ahead: int
    level: int
    behind: int
    at_least_median: int  # best's median rate >= every peer's median rate
    at_copy_share: int = 0  # best's median rate >= COPY_SHARE x its run's copy ceiling
    at_size_share: int = 0  # best's median rate >= COPY_SHARE x its run's size-matched reference


def tally(rows: Sequence[Standing]) -> dict[tuple[str, str, str, str], Tally]:
    groups: dict[tuple[str, str, str, str], dict[str, list[Standing]]] = {}
    for s in rows:
        groups.setdefault((s.device, s.contract, s.dtype, s.problem), {}).setdefault(s.shape, []).append(s)
    out: dict[tuple[str, str, str, str], Tally] = {}
    for key, shapes in groups.items():
        counts = {"ahead": 0, "level": 0, "behind": 0}
        at_least = at_copy = at_size = 0
        for vs in shapes.values():
            strongest = max(vs, key=lambda s: s.peer.gbps)
            counts[strongest.verdict] += 1
            at_least += strongest.best.gbps >= strongest.peer.gbps
            share = strongest.of_copy
            at_copy += share is not None and share >= COPY_SHARE
            at_size += strongest.of_at_size is not None and strongest.of_at_size >= COPY_SHARE
        out[key] = Tally(len(shapes), counts["ahead"], counts["level"], counts["behind"], at_least, at_copy, at_size)
    return out
