"""``select``: for a subject (operator or primitive), a shape, a dtype and a device, the realization
and parameter point to run, its predicted time and rate, the evidence rows the prediction rests on
and the record's structural reason.

The device's evidence decides (epldb.select.model: measured rows at a measured shape, the fitted
model elsewhere), among the verified realizations and the points whose launch domain serves the
shape. Two fallbacks, each said in the choice's ``note``:

- a device with no evidence of the subject at that dtype takes the choice the evidence of the
  device measured most for it implies (the same realization family behaves alike across the
  parts one target serves; the note names the device whose evidence decided);
- with no evidence at all, the first verified realization in the catalog's order that serves the
  shape, at its first point (in declaration order) that does: the catalog's rule of least surprise,
  with no prediction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from epldb.launch.domain import in_domain
from epldb.select.model import Prediction, RealizationModel
from epldb.select.observations import (SelectError, Subject, aligned, axis_value, by_output_size, key, observations,
                                       subject_of, work)

if TYPE_CHECKING:
    import pandas

    from epldb.catalog import Catalog
    from epldb.records import Realization


@dataclass(frozen=True)
class Choice:
    """What ``select`` returns."""

    subject: str
    device: str
    dtype: str
    shape: dict[str, int]
    problem: dict[str, Any]
    realization: str
    point: dict[str, Any]
    predicted_ms: float | None  # None under the no-evidence rule
    predicted_gbps: float | None
    basis: str  # "measured" | "interpolated" | "extrapolated" | "rule"
    reason: str  # the record's when_it_wins (else its summary): why it wins, in structural terms
    evidence: tuple[dict[str, Any], ...] = ()
    alternatives: tuple[dict[str, Any], ...] = ()  # the other realizations' best predictions
    note: str = ""  # the fallback taken, if any
    predicted_gflops: float | None = None  # a contract judged by a rate ceiling (a GEMM's TFLOP/s)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line: the pick, its point, its predicted time and what it rests on."""
        point = ", ".join(f"{k}={v}" for k, v in self.point.items())
        if self.predicted_ms is None:
            timing = "no prediction"
        else:
            rate = (f"{self.predicted_gflops / 1000:.0f} TFLOP/s" if self.predicted_gflops
                    else f"{self.predicted_gbps:.0f} GB/s")
            timing = f"{microseconds(self.predicted_ms)} us predicted ({rate}, {self.basis})"
        return f"{self.realization} [{point}]: {timing}"


def microseconds(ms: float) -> str:
    """A time in ms as microseconds to read: one decimal, three significant digits below 1 us."""
    us = ms * 1000
    return f"{us:.1f}" if us >= 1 else f"{us:.3g}"


def _clean(value: Any) -> Any:
    """Numbers from the evidence as plain Python numbers (JSON and repr stay readable)."""
    return value.item() if hasattr(value, "item") else value


@dataclass
class Selector:
    """Selection over one loaded catalog; observations are read once per subject and fitted once per
    (subject, device, dtype, problem, realization)."""

    lab: "Catalog"
    evidence: "pandas.DataFrame | None" = None
    _obs: dict[str, "pandas.DataFrame"] = field(default_factory=dict)
    _models: dict[tuple[Any, ...], RealizationModel] = field(default_factory=dict)
    # What select asks again at every shape of a subject (a decision table asks at hundreds): the
    # devices measured, the typed problem, the dtypes and each realization's points of one
    # (dtype, problem). Functions of the records and of observations read once.
    _memo: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def _memoized(self, k: tuple[Any, ...], compute: Any) -> Any:
        if k not in self._memo:
            self._memo[k] = compute()
        return self._memo[k]

    def subject(self, subject_id: str) -> Subject:
        return subject_of(self.lab, subject_id)

    def observations(self, subject: Subject) -> "pandas.DataFrame":
        if subject.id not in self._obs:
            if self.evidence is None:
                from epldb.evidence import load_evidence

                self.evidence = load_evidence(self.lab.root, self.lab, run_kind="bench", kind="realization")
            self._obs[subject.id] = observations(self.lab, subject, self.evidence)
        return self._obs[subject.id]

    def devices(self, subject: Subject, dtype: str, problem: Mapping[str, Any]) -> list[str]:
        """Devices with evidence of the subject at this dtype and problem, most rows first."""
        def compute() -> list[str]:
            counts = self._slice(subject, None, dtype, problem)["device"].value_counts()
            return [str(d) for d in counts.index]

        return list(self._memoized(("devices", subject.id, dtype, key(problem)), compute))

    def _slice(self, subject: Subject, device: str | None, dtype: str, problem: Mapping[str, Any]) -> "pandas.DataFrame":
        obs = self.observations(subject)
        mask = obs["dtype"] == dtype
        if device is not None:
            mask &= obs["device"] == device
        for k, v in problem.items():
            mask &= obs[k] == v
        return obs[mask]

    def model(self, subject: Subject, device: str, dtype: str, problem: Mapping[str, Any],
              realization: str, exclude_shape: str | None = None, row_aligned: bool = True) -> RealizationModel:
        """The realization's model; ``exclude_shape`` fits it without one shape's rows (evaluation).
        It is fitted on the rows of the query's alignment class (rows 16-byte aligned or not, see
        observations.aligned) where the evidence has any, else on all of them (``mixed``)."""
        k = (subject.id, device, dtype, key(problem), realization, row_aligned)
        if exclude_shape is None and k in self._models:
            return self._models[k]
        mine = self._records(subject, device, dtype, problem).get(realization, [])
        if exclude_shape is not None:
            mine = [r for r in mine if r["shape"] != exclude_shape]
        same = [r for r in mine if r["aligned"] == row_aligned]
        obs = same or mine
        m = RealizationModel(realization, obs, axis_sets_grid=by_output_size(subject))
        if exclude_shape is None:
            self._models[k] = m
        return m

    def _records(self, subject: Subject, device: str, dtype: str,
                 problem: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
        """The observations of one (device, dtype, problem) as plain records, by realization."""
        def compute() -> dict[str, list[dict[str, Any]]]:
            out: dict[str, list[dict[str, Any]]] = {}
            for rec in self._slice(subject, device, dtype, problem).to_dict("records"):
                out.setdefault(rec["realization"], []).append(rec)
            return out

        return self._memoized(("records", subject.id, device, dtype, key(problem)), compute)  # type: ignore[no-any-return]

    def points(self, subject: Subject, r: "Realization", shape: Mapping[str, int], dtype: str,
               problem: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The realization's points at this dtype and problem whose launch domain serves the shape."""
        mine = self._memoized(("points", r.id, dtype, key(problem)), lambda: [
            p for p in r.points() if subject.contract.dtype_of(p) == dtype and subject.problem_of(p) == dict(problem)])
        return [p for p in mine if in_domain(r, shape, p)]

    def predictions(self, subject: Subject, shape: Mapping[str, int], dtype: str, problem: Mapping[str, Any],
                    device: str, exclude_shape: str | None = None,
                    only: Mapping[str, list[dict[str, Any]]] | None = None) -> list[Prediction]:
        """Every realization's prediction at the shape, fastest first. ``only`` restricts each
        realization's candidate points (evaluation: the points measured at a hidden shape)."""
        x = axis_value(subject, shape)
        shape_key = key(shape)
        row_aligned = aligned(subject, shape, dtype)
        out = []
        for r in subject.realizations:
            points = only.get(r.id, []) if only is not None else self.points(subject, r, shape, dtype, problem)
            if not points:
                continue
            nbytes = work(subject.contract, shape, points[0])
            p = self.model(subject, device, dtype, problem, r.id, exclude_shape, row_aligned).predict(
                shape_key, x, nbytes, points)
            if p is not None:
                out.append(p)
        return sorted(out, key=lambda p: p.time_ms)

    def select(self, subject_id: str, shape: str | Mapping[str, int], dtype: str, device: str | None = None,
               **problem: Any) -> Choice:
        subject = self.subject(subject_id)
        shape_d = subject.parse_shape(shape)
        given = tuple(sorted((str(k), str(v)) for k, v in problem.items()))
        problem = dict(self._memoized(("problem", subject.id, given), lambda: self._problem(subject, problem)))
        dtypes = self._memoized(("dtypes", subject.id), lambda: sorted(
            {subject.contract.dtype_of(p) for r in subject.realizations for p in r.points()}))
        if dtype not in dtypes:
            raise SelectError(f"{subject.id} has no verified realization for dtype {dtype!r} (declared: {', '.join(dtypes)})")
        here, note = self._device(subject, device, dtype, problem)
        preds = self.predictions(subject, shape_d, dtype, problem, here) if here else []
        if not preds or here is None:
            return self._rule(subject, shape_d, dtype, problem, device or "unknown",
                              note or f"no evidence of {subject.id} at {dtype}")
        best, rest = preds[0], preds[1:]
        r = self.lab.realizations[best.realization]
        if not aligned(subject, shape_d, dtype) and best.basis != "measured":
            if all(rec["aligned"] for rec in self._records(subject, here, dtype, problem).get(best.realization, [])):
                note = "; ".join(filter(None, [note, (
                    "rows here are not 16-byte aligned and the evidence times only aligned ones: the vector "
                    "kernels' scalar path is not in the prediction")]))
        fastest = min((rec["time_ms"] for rec in self._records(subject, here, dtype, problem).get(best.realization, [])),
                      default=None)
        if best.basis != "measured" and fastest is not None and best.time_ms < fastest:
            note = "; ".join(filter(None, [note, (
                f"predicted below the fastest time measured of {best.realization} here "
                f"({microseconds(fastest)} us): the model scales time with the bytes and leaves out the launch "
                "and its latency, which bound a small problem from below")]))
        nbytes = subject.contract.bytes_moved(shape_d, best.point)
        flops = subject.contract.flops(shape_d, best.point) if subject.contract.rate_ceiling else None
        return Choice(
            subject=subject.id, device=here, dtype=dtype, shape=shape_d, problem=dict(problem),
            realization=best.realization, point=best.point, predicted_ms=best.time_ms,
            predicted_gbps=nbytes / (best.time_ms * 1e-3) / 1e9,
            predicted_gflops=flops / (best.time_ms * 1e-3) / 1e9 if flops else None, basis=best.basis,
            reason=_reason(r),
            evidence=tuple({k: _clean(v) for k, v in row.items()} for row in best.rests_on),
            alternatives=tuple({"realization": p.realization, "point": p.point, "predicted_ms": p.time_ms,
                                "basis": p.basis} for p in rest),
            note=note)

    def _problem(self, subject: Subject, given: Mapping[str, Any]) -> dict[str, Any]:
        keys = subject.problem_keys()
        unknown = sorted(set(given) - set(keys))
        if unknown:
            raise SelectError(f"{subject.id} takes no problem parameter {', '.join(unknown)}"
                              + (f" (it takes: {', '.join(keys)})" if keys else ""))
        out = {}
        for k in keys:
            # By the text of each value, as a command line gives it: '256' is the tile 256.
            typed = {str(v): v for v in (subject.problem_of(p)[k] for r in subject.realizations for p in r.points())}
            values = sorted(typed)
            if k not in given:
                raise SelectError(f"{subject.id} needs {k}= one of {', '.join(values)}")
            if str(given[k]) not in typed:
                raise SelectError(f"{k}={given[k]!r} is not one of {', '.join(values)}")
            out[k] = typed[str(given[k])]
        return out

    def _device(self, subject: Subject, device: str | None, dtype: str,
                problem: Mapping[str, Any]) -> tuple[str | None, str]:
        """The device whose evidence decides, and the note saying why it is not the one asked for."""
        measured = self.devices(subject, dtype, problem)
        if device is None:
            device = _local_device()
            if device is None:
                if not measured:
                    return None, "no GPU here and no evidence"
                return measured[0], f"no device given and no GPU here: chosen by the evidence of {measured[0]}"
        if device in measured:
            return device, ""
        if not measured:
            return None, f"no evidence of {subject.id} at {dtype} on any device"
        return measured[0], (f"no evidence of {subject.id} at {dtype} on {device}: chosen by the evidence of "
                             f"{measured[0]}, the device measured most for it")

    def _rule(self, subject: Subject, shape: dict[str, int], dtype: str, problem: dict[str, Any], device: str,
              why: str) -> Choice:
        for r in subject.realizations:
            points = self.points(subject, r, shape, dtype, problem)
            if points:
                return Choice(subject=subject.id, device=device, dtype=dtype, shape=shape, problem=problem,
                              realization=r.id, point=points[0], predicted_ms=None, predicted_gbps=None,
                              basis="rule", reason=_reason(r),
                              note=why + ": the first verified realization in catalog order that serves the shape, "
                                         "at its first serving point")
        raise SelectError(f"no verified realization of {subject.id} serves shape "
                          f"{'x'.join(str(v) for v in shape.values())} at {dtype} (launch domains)")


def _reason(r: "Realization") -> str:
    return " ".join((r.when_it_wins or r.summary or "").split())


def _local_device() -> str | None:
    from epldb.device import device_info, gpu_available

    return device_info().slug if gpu_available() else None


def select(lab: "Catalog", subject: str, shape: str | Mapping[str, int], dtype: str, device: str | None = None,
           **problem: Any) -> Choice:
    """One selection (a Selector made for it; keep a Selector for many)."""
    return Selector(lab).select(subject, shape, dtype, device, **problem)
