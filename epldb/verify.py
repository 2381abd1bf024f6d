"""Verification on the GPU: does a realization compute its contract's function, on any input?

Per parameter point and verification shape (sizes that are multiples of nothing: 1, 31, 4097,
primes, and large), one check:

1. fresh random inputs (a new seed per check; wide dynamic range, never zeros), generated on the
   device; the float64 reference from the contract (NumPy on the host for small sizes, the same
   code on the device in float64 for large ones);
2. outputs poisoned (every byte 0xFF: NaN for floats) inside a larger allocation whose canary
   regions on both sides must stay untouched; inputs must come back unchanged;
3. error: max |out - ref| / max |ref| and ||out - ref||_2 / ||ref||_2 against the contract's
   tolerance for the dtype; any NaN (an unwritten or poisoned output) fails;
   where the contract says the mathematics is exact (``exact_outputs``: a constant row's
   layernorm, a one-element row's softmax), every value must be the reference rounded to the
   output dtype, bit for bit;
4. a second run on the same inputs, outputs poisoned again: bitwise equal or not (recorded; a
   realization that declares ``determinism: bitwise`` and differs is incorrect).

Status: passed | incorrect | compile-error | runtime-error | skipped.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from epldb.contracts import Contract, make_rng
from epldb.contracts.dtypes import from_float64, poison_pattern, storage_dtype, to_float64
from epldb.evidence import Row
from epldb.launch.domain import shapes_for_point
from epldb.runner import Launcher, RunError, load_realization, prepare

if TYPE_CHECKING:
    from epldb.catalog import Catalog

#: Above this many input elements the reference is computed on the device (float64, same code).
HOST_REFERENCE_LIMIT = 1 << 22
#: Canary bytes on each side of every output.
CANARY_BYTES = 4096

Progress = Callable[[str], None]


@dataclass(frozen=True)
class ErrorFigures:
    max_rel: float
    rel_l2: float
    nan: int  # count of non-finite outputs where the reference is finite
    first_bad: int | None  # index of the first non-finite output


def error_figures(out: Any, ref: Any, xp: Any = np) -> ErrorFigures:
    """Normwise error of ``out`` (float64) against ``ref`` (float64); NaNs counted apart."""
    out = out.ravel()
    ref = ref.ravel()
    if out.size == 0:
        return ErrorFigures(0.0, 0.0, 0, None)
    # An infinite reference (e.g. the max of an all -inf row) must be matched exactly: an equal
    # output counts as error 0, any other output there as bad; the scale is the finite references'.
    finite_ref = xp.isfinite(ref)
    bad = (~xp.isfinite(out) & finite_ref) | (~finite_ref & (out != ref))
    nan = int(bad.sum())
    first_bad = int(xp.argmax(bad)) if nan else None
    ref = xp.where(finite_ref, ref, 0.0)
    diff = xp.where(bad, 0.0, xp.abs(xp.where(finite_ref, out, 0.0) - ref))  # bad fails on its own
    ref_max = float(xp.abs(ref).max())
    ref_norm = float(xp.linalg.norm(ref))
    max_abs = float(diff.max())
    max_rel = max_abs / ref_max if ref_max > 0 else max_abs
    l2 = float(xp.linalg.norm(diff))
    rel_l2 = l2 / ref_norm if ref_norm > 0 else l2
    return ErrorFigures(max_rel, rel_l2, nan, first_bad)


def inexact_elements(got: Any, ref: Any, mask: Any, dtype: str, xp: Any = np) -> tuple[int, int | None]:
    """How many of the outputs ``got`` (float64 of the stored values) under ``mask`` differ from the
    float64 reference rounded to ``dtype`` (the exactly rounded result; NaN matches NaN), and the
    flat index of the first."""
    exact = to_float64(from_float64(ref.ravel(), dtype, xp), dtype, xp)
    got = got.ravel()
    wrong = xp.asarray(mask).ravel() & ~((got == exact) | (xp.isnan(got) & xp.isnan(exact)))
    count = int(wrong.sum())
    return count, (int(xp.argmax(wrong)) if count else None)


@dataclass
class GuardedOutput:
    """An output array in the middle of a larger buffer whose both ends are canaries."""

    buffer: Any  # uint8 view of the whole allocation
    view: Any  # the output itself (storage dtype)
    guard: int  # canary bytes on each side

    def poison(self) -> None:
        self.buffer.fill(0xFF)

    def canaries_intact(self) -> bool:
        import cupy

        g = self.guard
        left = self.buffer[:g]
        right = self.buffer[self.buffer.size - g :]
        return bool(cupy.all(left == 0xFF)) and bool(cupy.all(right == 0xFF))


def guarded_outputs(launcher: Launcher) -> dict[str, GuardedOutput]:
    import cupy

    out: dict[str, GuardedOutput] = {}
    for spec in launcher.output_specs():
        dt = storage_dtype(spec.dtype)
        nbytes = spec.count * dt.itemsize
        g = CANARY_BYTES
        raw = cupy.empty(nbytes + 2 * g, dtype=cupy.uint8)
        raw.fill(poison_pattern(spec.dtype))
        view = raw[g : g + nbytes].view(dt)
        out[spec.name] = GuardedOutput(raw, view, g)
    return out


def _sync() -> None:
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def check_point(launcher: Launcher, shape: Mapping[str, int], seed: int) -> Row:
    """One verification check of one realization at one point and shape (see module docstring)."""
    import cupy

    contract: Contract = launcher.contract
    point = launcher.point
    r = launcher.loaded.realization
    build = launcher.loaded.build
    dtype = contract.dtype_of(point)
    row = Row(r.id, "realization", dict(point), dtype, dict(shape), "incorrect",
              target=build.target, nvrtc=build.nvrtc_version, source_hash=build.source_hash)
    details = [f"seed={seed}"]

    inputs = contract.make_inputs(dict(shape), dtype, point, make_rng(cupy, seed), cupy)
    pristine = {k: v.copy() for k, v in inputs.items()}
    n_elems = sum(int(v.size) for v in inputs.values())
    if n_elems <= HOST_REFERENCE_LIMIT:
        ref = contract.reference({k: cupy.asnumpy(v) for k, v in inputs.items()}, dict(shape), point, np)
        xp: Any = np
    else:
        ref = contract.reference(inputs, dict(shape), point, cupy)
        xp = cupy
        details.append("reference on device (float64)")

    outs = guarded_outputs(launcher)
    run = launcher.bind({**inputs, **{k: g.view for k, g in outs.items()}})
    try:
        run()
        _sync()
    except Exception as e:  # noqa: BLE001 - CUDA errors come as several CuPy exception types
        row.status = "runtime-error"
        row.detail = f"{type(e).__name__}: {e}"
        return row
    first = {k: g.view.copy() for k, g in outs.items()}
    canaries = all(g.canaries_intact() for g in outs.values())

    worst = ErrorFigures(0.0, 0.0, 0, None)
    exact = contract.exact_outputs(dict(shape), point, xp)
    inexact = 0
    for spec in launcher.output_specs():
        got = to_float64(first[spec.name], spec.dtype, cupy)
        got = got if xp is cupy else cupy.asnumpy(got)
        fig = error_figures(got, ref[spec.name], xp)
        if fig.nan:
            details.append(f"{fig.nan} non-finite value(s) in '{spec.name}', first at [{fig.first_bad}]")
        if spec.name in exact:
            count, at = inexact_elements(got, ref[spec.name], exact[spec.name], spec.dtype, xp)
            inexact += count
            details.append(f"{count} inexact value(s) in '{spec.name}' where it is exact, first at [{at}]" if count
                           else f"exact where required ({int(exact[spec.name].sum())} values of '{spec.name}')")
        worst = ErrorFigures(max(worst.max_rel, fig.max_rel), max(worst.rel_l2, fig.rel_l2),
                             worst.nan + fig.nan, worst.first_bad if worst.first_bad is not None else fig.first_bad)
    row.err_max_rel, row.err_rel_l2 = worst.max_rel, worst.rel_l2

    # Second run on the same inputs, outputs poisoned again: bitwise reproducible?
    for g in outs.values():
        g.poison()
    try:
        run()
        _sync()
    except Exception as e:  # noqa: BLE001
        row.status = "runtime-error"
        row.detail = f"second run: {type(e).__name__}: {e}"
        return row
    row.deterministic = all(bool(cupy.array_equal(first[k].view(cupy.uint8), g.view.view(cupy.uint8)))
                            for k, g in outs.items())
    canaries = canaries and all(g.canaries_intact() for g in outs.values())
    inputs_kept = all(bool(cupy.array_equal(pristine[k], v)) for k, v in inputs.items())

    tol = contract.tolerance_for(point)
    failures: list[str] = []
    if worst.nan:
        failures.append("NaN in output")
    if worst.max_rel > tol.max_rel or worst.rel_l2 > tol.rel_l2:
        failures.append(f"error above tolerance (max_rel {tol.max_rel:g}, rel_l2 {tol.rel_l2:g})")
    if inexact:
        failures.append("inexact where the result is exact (degenerate rows)")
    if not canaries:
        failures.append("canary overwritten: a write outside the output")
    if not inputs_kept:
        failures.append("an input was modified")
    if r.determinism == "bitwise" and not row.deterministic:
        failures.append("declared bitwise deterministic, but two runs differ")
    row.status = "incorrect" if failures else "passed"
    if launcher.loaded.notes:
        details.append(f"build: {launcher.loaded.notes}")
    row.detail = "; ".join(failures + details)
    return row


def new_seed() -> int:
    return secrets.randbits(48)


def verify_realization(
    catalog: "Catalog",
    realization_id: str,
    *,
    shapes: list[dict[str, int]] | None = None,
    points: list[dict[str, Any]] | None = None,
    seed: int | None = None,
    skip: Callable[[Row], bool] | None = None,
    emit: Callable[[Row], None] | None = None,
) -> list[Row]:
    """Verify every point × shape (defaults: the whole space, the contract's verify shapes): the
    shapes inside the point's domain, or all of them fitted into it where none is
    (launch.domain.shapes_for_point).

    ``skip(row)`` (given a row with the key filled) says a row is already recorded (resume);
    ``emit(row)`` is called for each finished row, in order (to write it at once).
    """
    rows: list[Row] = []
    base_seed = new_seed() if seed is None else seed
    r = catalog.realizations[realization_id]

    def finish(row: Row) -> None:
        rows.append(row)
        if emit is not None:
            emit(row)

    try:
        loaded = load_realization(catalog, realization_id)
    except RunError as e:
        from epldb.runner import contract_of

        try:
            contract: Contract | None = contract_of(catalog, r)
        except RunError:
            contract = None
        for point in points or r.points():
            for shape in shapes or (contract.verify_shapes if contract else [{}]):
                dtype = contract.dtype_of(point) if contract else str(point.get("dtype", ""))
                row = Row(r.id, "realization", dict(point), dtype, dict(shape), e.status, detail=e.message)
                if skip is None or not skip(row):
                    finish(row)
        return rows

    contract = loaded.contract
    counter = 0
    for point in points or r.points():
        # the shapes inside the point's launch.domain (another realization serves the rest), or
        # where none is, those shapes fitted into it: no point goes unverified
        for shape in shapes_for_point(r, point, shapes or list(contract.verify_shapes)):
            counter += 1
            key_row = Row(r.id, "realization", dict(point), contract.dtype_of(point), dict(shape), "skipped")
            if skip is not None and skip(key_row):
                continue
            try:
                launcher = prepare(catalog, realization_id, shape, point)
            except RunError as e:
                key_row.status, key_row.detail = e.status, e.message
                finish(key_row)
                continue
            finish(check_point(launcher, shape, base_seed + counter))
    return rows
