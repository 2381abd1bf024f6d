"""What selection rests on: the committed bench evidence of a subject's verified realizations, one
row per (device, realization, parameter point, shape) — the newest fresh passing timing — with the
quantities the model works in.

The model's axis is the row length in octaves, ``x = log2(cols)`` (``log2(n)`` for a contract over
one flat array, ``log2(m·n)`` for a matrix product: the output's size, which sets its tile count),
and its measure is time per unit of work, ``tpb = time / work``: the minimal bytes the contract moves
at that shape (``Contract.bytes_moved``), or its flops where the contract is judged by a rate ceiling (a GEMM:
compute-bound, its time follows 2·m·n·k, not its bytes), so that shapes of different sizes compare
as rates. Draft realizations and stale, failing or untimed rows are left out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from epldb.contracts import Contract, get_contract
from epldb.contracts.base import MAX_SIZE_DIGITS, shape_sizes
from epldb.evidence import canonical_json

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.records import Operator, Primitive, Realization


class SelectError(Exception):
    """A selection that cannot be made, said in one plain line (unknown subject, bad shape, ...)."""


@dataclass(frozen=True)
class Subject:
    """An operator or primitive with a contract: what ``select`` chooses a realization of."""

    record: "Primitive | Operator"
    contract: Contract
    realizations: tuple["Realization", ...]  # verified ones with a kernel, in catalog order

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def axis(self) -> str:
        """The shape variable the model interpolates over: the row length."""
        return "cols" if "cols" in self.contract.shape_vars else self.contract.shape_vars[0]

    def problem_keys(self) -> tuple[str, ...]:
        """What defines the problem besides the dtype (``op`` of a reduction, ``tile`` of a block's
        reduction): the contract's peer parameters, which it derives from a point."""
        r = self.realizations[0]
        point = {k: v[0] for k, v in r.params.items()}
        return tuple(k for k in self.contract.peer_params(point) if k != "dtype")

    def problem_of(self, point: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in self.contract.peer_params(dict(point)).items() if k != "dtype"}

    def parse_shape(self, text: str | Mapping[str, int]) -> dict[str, int]:
        """'8192x32001' (the contract's shape variables in order) or a mapping → a shape."""
        names = self.contract.shape_vars
        if isinstance(text, Mapping):
            shape = {k: int(v) for k, v in text.items()}
            if set(shape) != set(names):
                raise SelectError(f"{self.id} takes a shape of {', '.join(names)}; got {', '.join(shape) or 'nothing'}")
        else:
            sizes = shape_sizes(str(text))
            if sizes is None or len(sizes) != len(names):
                raise SelectError(f"shape {text!r}: {self.id} takes {'x'.join(names).upper()} "
                                  f"({len(names)} positive integer(s) of at most {MAX_SIZE_DIGITS} digits joined by 'x', e.g. "
                                  f"{'x'.join(str(v) for v in self.contract.bench_shapes(False)[0].values())})")
            shape = dict(zip(names, sizes))
        bad = [k for k, v in shape.items() if v < 1]
        if bad:
            raise SelectError(f"shape {text!r}: {', '.join(bad)} must be at least 1")
        return shape


def subject_of(lab: "Catalog", subject_id: str) -> Subject:
    record = lab.primitives.get(subject_id) or lab.operators.get(subject_id)
    if record is None:
        known = sorted({r.subject for r in lab.realizations.values()})
        raise SelectError(f"no operator or primitive '{subject_id}' in the catalog (with realizations: {', '.join(known)})")
    contract = get_contract(record.contract) if record.contract else None
    if contract is None:
        raise SelectError(f"'{subject_id}' names no measurement contract, so nothing can be selected for it")
    rs = tuple(r for r in lab.realizations_of(subject_id) if r.status == "verified" and r.kernel.source)
    if not rs:
        raise SelectError(f"'{subject_id}' has no verified realization")
    return Subject(record, contract, rs)


def work(contract: Contract, shape: Mapping[str, int], point: Mapping[str, Any]) -> int:
    """What the model divides time by: flops for a contract judged by a rate ceiling, else bytes."""
    if contract.rate_ceiling is not None:
        flops = contract.flops(dict(shape), dict(point))
        if flops:
            return int(flops)
    return int(contract.bytes_moved(dict(shape), dict(point)))


def key(point: Mapping[str, Any]) -> str:
    return canonical_json(dict(point))


def aligned(subject: Subject, shape: Mapping[str, int], dtype: str) -> bool:
    """Whether every row starts on a 16-byte boundary (the row length in bytes a multiple of 16):
    where it does not, the vector kernels take their scalar path, a different cost. A flat
    contract's one array always starts aligned."""
    from epldb.launch.env import ITEMSIZE

    if subject.axis != "cols":
        return True
    return (int(shape["cols"]) * ITEMSIZE.get(dtype, 4)) % 16 == 0


def by_output_size(subject: Subject) -> bool:
    """Whether the axis is the output's size m·n (a matrix product judged by a rate ceiling)."""
    return subject.contract.rate_ceiling is not None and subject.axis == "m" and "n" in subject.contract.shape_vars


def axis_value(subject: Subject, shape: Mapping[str, int]) -> float:
    """x: log2 of the row length; for a matrix product log2(m·n), the output's size, which sets how
    many tiles cover the SMs and so the time per flop (split-K wins where m·n is small, whatever k;
    on log2(m) alone 128 x 4096 and 128 x 128256 looked alike: leave-one-out 61% within 5%, 79% on m·n)."""
    if by_output_size(subject):
        return math.log2(max(1, int(shape["m"]) * int(shape["n"])))
    return math.log2(max(1, int(shape[subject.axis])))


def observations(lab: "Catalog", subject: Subject, evidence: "pandas.DataFrame | None" = None) -> "pandas.DataFrame":
    """The subject's timed rows: columns device, realization, params (canonical JSON), point (dict),
    dtype, shape (canonical JSON), shape_d (dict), x, aligned, bytes, time_ms, gbps, run, plus the problem
    keys (``op``...) as columns. ``evidence`` is Lab.evidence() when the caller has it already."""
    import pandas as pd

    if evidence is None:
        from epldb.evidence import load_evidence

        evidence = load_evidence(lab.root, lab, run_kind="bench", kind="realization")
    ev = evidence
    ids = {r.id for r in subject.realizations}
    ev = ev[ev["subject"].isin(ids) & (ev["kind"] == "realization") & ~ev["stale"].astype(bool)
            & ev["time_ms_median"].notna()]
    if "run_kind" in ev:
        ev = ev[ev["run_kind"] == "bench"]
    ev = ev.sort_values("run", kind="stable").groupby(["device", "subject", "params", "shape"], sort=False).tail(1)
    ev = ev[ev["status"] == "passed"]
    problem = subject.problem_keys()
    rows: list[dict[str, Any]] = []
    for rec in ev.to_dict("records"):
        point = json.loads(rec["params"])
        shape = json.loads(rec["shape"])
        nbytes = work(subject.contract, shape, point)
        rows.append({
            "device": rec["device"], "realization": rec["subject"], "params": key(point), "point": point,
            "dtype": rec["dtype"], "shape": key(shape), "shape_d": shape, "x": axis_value(subject, shape),
            "aligned": aligned(subject, shape, rec["dtype"]),
            "bytes": nbytes, "time_ms": float(rec["time_ms_median"]), "tpb": float(rec["time_ms_median"]) / nbytes,
            "run": rec["run"], **subject.problem_of(point),
        })
    columns = ["device", "realization", "params", "point", "dtype", "shape", "shape_d", "x", "aligned", "bytes", "time_ms",
               "tpb", "run", *problem]
    return pd.DataFrame(rows, columns=columns)
