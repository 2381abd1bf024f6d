"""Run a realization on the GPU: ``epldb.run("block-reduce/warp-shuffle", x, block=256)``.

One path for everyone (users, the verifier, the benchmark, the tests): compile the realization for
the device's target through ``epldb.compile`` (cached on disk by content), load the cubin into
CuPy once per process, evaluate the launch plan for the shape and parameter point, allocate the
outputs and scratch buffers, and launch each step in order on the current stream.

CuPy (and PyTorch, for tensors passed in) are imported inside functions, so this module imports on
machines without a GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.catalog import default_catalog
from epldb.contracts import Contract, get_contract
from epldb.contracts.dtypes import STORAGE, poison_pattern, storage_dtype
from epldb.launch.domain import in_domain, outside_domain
from epldb.launch import ArrayArg, ResolvedPlan, TensorMapArg, contract_arrays, pick_entry, plan_env, resolve_plan
from epldb.device import choose_target, device_info
from epldb.occupancy import allow_cluster_shape, allow_dynamic_shared, resident_blocks
from epldb.problems import Problem
from epldb.records import ParamValue, Realization

if TYPE_CHECKING:
    from epldb.catalog import Catalog
    from epldb.compile import RealizationBuild

Status = str  # "passed" | "incorrect" | "compile-error" | "runtime-error" | "skipped"


class RunError(Exception):
    """A realization could not be run; ``status`` is the evidence status it maps to."""

    def __init__(self, status: Status, message: str, problems: tuple[Problem, ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.problems = problems


def cupy_module() -> Any:
    """CuPy, or a RunError saying how to install the GPU path (README.md, docs/GPU.md)."""
    try:
        import cupy
    except ModuleNotFoundError:
        raise RunError("skipped", "CuPy is not installed, and epldb launches its kernels through it: "
                                  "pip install -e '.[gpu]' (README.md, 'On a GPU machine'; docs/GPU.md)") from None
    return cupy


# --- catalog and contract lookup ---------------------------------------------------------------


def contract_of(catalog: "Catalog", realization: Realization) -> Contract:
    """The measurement contract a realization runs under: its primitive's, or its operator's for an
    operator realization (``Catalog.contract_name_of``); RunError 'skipped' when there is none."""
    kind, subject_id = realization.subject_kind, realization.subject
    subject = catalog.subject_of(realization)
    if subject is None:
        raise RunError("skipped", f"{kind} '{subject_id}' is not in the catalog")
    contract = get_contract(subject.contract)
    if contract is None:
        raise RunError("skipped", f"{kind} '{subject.id}' names no known contract ({subject.contract!r})")
    return contract


def realization_of(catalog: "Catalog", realization_id: str) -> Realization:
    r = catalog.realizations.get(realization_id)
    if r is None:
        raise RunError("skipped", f"no realization '{realization_id}' in the catalog")
    return r


# --- compiled and loaded realizations --------------------------------------------------------------


@dataclass
class LoadedRealization:
    """A realization compiled for one target (its whole parameter space) and loaded into CuPy."""

    realization: Realization
    contract: Contract
    build: "RealizationBuild"
    module: Any
    functions: dict[str, Any] = field(default_factory=dict)

    def function(self, entry: str, point: Mapping[str, ParamValue]) -> Any:
        eb = self.build.find(entry, dict(point))
        if eb is None:
            raise RunError("compile-error", f"the build has no entry '{entry}' at point {dict(point)}")
        if eb.lowered_name not in self.functions:
            fn = self.module.get_function(eb.lowered_name)
            allow_cluster_shape(fn)
            self.functions[eb.lowered_name] = fn
        return self.functions[eb.lowered_name]

    @property
    def notes(self) -> str:
        """Non-fatal build problems (failed claims) for the evidence row's detail."""
        return "; ".join(p.message for p in self.build.problems if p.severity == "error")


_LOADED: dict[tuple[str, str, str, str], LoadedRealization] = {}


def _load_cubin(cubin: bytes) -> Any:
    """A CuPy module from cubin bytes (``Module.load``), or through a temporary file."""
    from cupy.cuda import function

    module = function.Module()
    try:
        module.load(cubin)
        return module
    except (AttributeError, TypeError):
        import tempfile

        import cupy

        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
            f.write(cubin)
        return cupy.RawModule(path=f.name)


def build_for_device(catalog: "Catalog", realization: Realization, target: str | None = None,
                     cache_dir: Path | None = None) -> "RealizationBuild":
    from epldb.compile import compile_realization

    if target is None:
        target = choose_target(realization.targets, device_info().compute_capability)
        if target is None:
            raise RunError("skipped", f"none of the declared targets ({', '.join(realization.targets)}) runs on {device_info().arch}")
    return compile_realization(catalog.root, realization, target, None, cache_dir=cache_dir)


def prebuild(catalog: "Catalog", realization_ids: Iterable[str]) -> None:
    """Compile the realizations' whole parameter spaces for this device side by side, into the disk
    cache that load_realization reads. One realization's space is one NVRTC program (a minute for
    a few hundred instantiations) and verify and bench load them one after another: on a 16-core
    GPU host, building them all first in threads (NVRTC runs outside the GIL) takes the time of the
    slowest few instead of their sum. Failures are left for load_realization to report in place."""
    from epldb.validate_deep import compile_all

    cc = device_info().compute_capability
    jobs = []
    for rid in dict.fromkeys(realization_ids):
        r = catalog.realizations.get(rid)
        target = choose_target(r.targets, cc) if r is not None and r.kernel.source else None
        if target is not None:
            jobs.append((r, target))
    if len(jobs) > 1:
        compile_all(catalog.root, jobs)


def load_realization(catalog: "Catalog", realization_id: str, target: str | None = None,
                     cache_dir: Path | None = None) -> LoadedRealization:
    """Compile (whole parameter space, cached) and load once per process; RunError if impossible."""
    from epldb.compile.hashing import source_hash

    r = realization_of(catalog, realization_id)
    contract = contract_of(catalog, r)
    if target is None:
        target = choose_target(r.targets, device_info().compute_capability)
        if target is None:
            raise RunError("skipped", f"none of the declared targets ({', '.join(r.targets)}) runs on {device_info().arch}")
    key = (str(catalog.root), r.id, target, source_hash(catalog.root, r.kernel.source))
    if key not in _LOADED:
        build = build_for_device(catalog, r, target, cache_dir)
        if build.cubin is None:
            errors = [p for p in build.problems if p.severity == "error"] or list(build.problems)
            first = errors[0].format() if errors else "no cubin"
            raise RunError("compile-error", f"{target}: {first}", tuple(build.problems))
        try:
            module = _load_cubin(build.cubin)
        except Exception as e:  # noqa: BLE001 - CUDA driver errors have no common base class
            raise RunError("runtime-error", f"loading the {target} cubin failed: {e}") from e
        _LOADED[key] = LoadedRealization(r, contract, build, module)
    return _LOADED[key]


# --- one shape and point, ready to launch -----------------------------------------------------------


@dataclass
class Launcher:
    """A realization at one shape and parameter point: the resolved plan and its functions."""

    loaded: LoadedRealization
    shape: dict[str, int]
    point: dict[str, ParamValue]
    plan: ResolvedPlan
    functions: list[Any]
    # Per step, the function of its unaligned_entry (None without one): launched instead when an
    # array argument of the step is not 16-byte aligned (with a split entry: when they do not all sit
    # at one address mod 16).
    fallbacks: list[Any | None] = field(default_factory=list)
    # Per step, the function of its split_entry (None without one): launched instead of the aligned
    # entry when the array arguments sit at one address mod 16 but not on 16-byte boundaries.
    splits: list[Any | None] = field(default_factory=list)

    @property
    def contract(self) -> Contract:
        return self.loaded.contract

    def output_specs(self) -> list[Any]:
        return self.contract.outputs(self.shape, self.point)

    def allocate_outputs(self, poison: bool = True) -> dict[str, Any]:
        import cupy

        out: dict[str, Any] = {}
        for spec in self.output_specs():
            a = cupy.empty(max(spec.count, 1), dtype=storage_dtype(spec.dtype))[: spec.count]
            if poison:
                a.view(cupy.uint8).fill(poison_pattern(spec.dtype))
            out[spec.name] = a
        return out

    def allocate_scratch(self) -> dict[str, Any]:
        import cupy

        out: dict[str, Any] = {}
        for s in self.plan.scratch:
            a = cupy.empty(max(s.count, 1), dtype=STORAGE[s.dtype])
            a.view(cupy.uint8).fill(0 if s.zero else poison_pattern(s.dtype))
            out[s.name] = a
        return out

    def bind(self, arrays: Mapping[str, Any], scratch: Mapping[str, Any] | None = None) -> Callable[[], None]:
        """A no-argument callable that launches every step on ``arrays`` (inputs and outputs by
        name); argument tuples are built once, so the callable is cheap enough to time. Scalar
        arguments go as their plan dtype: integers as np.int32, the contract's float scalars as
        np.float32."""
        import numpy as np

        scratch = dict(scratch) if scratch is not None else self.allocate_scratch()
        pool = {**arrays, **scratch}
        calls: list[tuple[Any, tuple[int, int, int], tuple[int, int, int], tuple[Any, ...], int]] = []
        fallbacks = self.fallbacks or [None] * len(self.functions)
        splits = self.splits or [None] * len(self.functions)
        for fn, split, fallback, step in zip(self.functions, splits, fallbacks, self.plan.steps):
            if fallback is not None or split is not None:
                addresses = [address(pool[a.name]) for a in step.args if isinstance(a, ArrayArg)]
                fn = (fn, split, fallback)[pick_entry(step.entry_splits, split is not None, fallback is not None, addresses)]
            if step.shared_bytes > 0:  # the 48 KiB default counts static shared memory too
                allow_dynamic_shared(fn, step.shared_bytes)
            if any(isinstance(a, TensorMapArg) for a in step.args):
                calls.append((_DriverLaunch(fn, step.args, pool), step.grid, step.block, (), step.shared_bytes))
                continue
            args = tuple(pool[a.name] if isinstance(a, ArrayArg) else np.dtype(a.dtype).type(a.value) for a in step.args)
            calls.append((fn, step.grid, step.block, args, step.shared_bytes))
        zeroed = [scratch[s.name] for s in self.plan.scratch if s.zero]

        def launch() -> None:
            for z in zeroed:
                z.fill(0)
            for fn, grid, block, args, shared in calls:
                fn(grid, block, args, shared_mem=shared)

        return launch

    def launch(self, arrays: Mapping[str, Any], scratch: Mapping[str, Any] | None = None) -> None:
        self.bind(arrays, scratch)()


class _DriverLaunch:
    """A step with tensor-map arguments, launched through cuLaunchKernel: CuPy's kernel call takes
    no 128-byte by-value parameter. The maps are encoded once, for the arrays bound (their
    addresses), and the argument block (one C value a parameter) is built once, so a call only
    launches on CuPy's current stream."""

    def __init__(self, fn: Any, args: tuple[Any, ...], pool: Mapping[str, Any]) -> None:
        import ctypes

        from epldb.launch.tensor_map import encode_tiled

        values: list[Any] = []
        for a in args:
            if isinstance(a, TensorMapArg):
                values.append(encode_tiled(a, _address(pool[a.array])))
            elif isinstance(a, ArrayArg):
                values.append(ctypes.c_uint64(_address(pool[a.name])))
            elif a.dtype == "float32":
                values.append(ctypes.c_float(float(a.value)))
            else:
                values.append(ctypes.c_int32(int(a.value)))
        self.fn, self.values, self.keep = fn, values, [pool[a.name] for a in args if isinstance(a, ArrayArg)]
        self.params = (ctypes.c_void_p * max(len(values), 1))(*(ctypes.addressof(v) for v in values))

    def __call__(self, grid: tuple[int, int, int], block: tuple[int, int, int], _args: tuple[Any, ...],
                 shared_mem: int = 0) -> None:
        import ctypes

        import cupy

        stream = cupy.cuda.get_current_stream().ptr
        cupy.cuda.driver.launchKernel(self.fn.ptr, *grid, *block, shared_mem, stream,
                                      ctypes.addressof(self.params), 0)


def prepare(catalog: "Catalog", realization_id: str, shape: Mapping[str, int], point: Mapping[str, ParamValue],
            *, target: str | None = None, cache_dir: Path | None = None) -> Launcher:
    """Compile/load (cached), resolve the plan for ``shape`` and ``point``; RunError if impossible."""
    loaded = load_realization(catalog, realization_id, target, cache_dir)
    r = loaded.realization
    if any(step.get("cluster") for step in (r.launch or {}).get("steps", [])):
        raise RunError("skipped", "cluster launches are not supported by the runner yet")
    reason = outside_domain(r, plan_env(shape, point))
    if reason is not None:
        raise RunError("skipped", f"{r.id}: {reason} (launch.domain); another realization serves this shape")
    info = device_info()

    def resident(entry: str, block: tuple[int, int, int], shared_bytes: int) -> int:
        return resident_blocks(loaded.function(entry, point), block, shared_bytes, info.sm_count).blocks

    plan = resolve_plan(r, plan_env(shape, point), contract_arrays(loaded.contract), info.limits(), resident)
    if not plan.ok:
        raise RunError("runtime-error", "launch plan: " + "; ".join(p.message for p in plan.problems), plan.problems)
    functions = [loaded.function(step.entry, point) for step in plan.steps]
    fallbacks = [loaded.function(step.unaligned_entry, point) if step.unaligned_entry else None for step in plan.steps]
    splits = [loaded.function(step.split_entry, point) if step.split_entry else None for step in plan.steps]
    return Launcher(loaded, dict(shape), dict(point), plan, functions, fallbacks, splits)


def _address(a: Any) -> int:
    """The device address of an array (CUDA array interface)."""
    return int(a.__cuda_array_interface__["data"][0])


def address(array: Any) -> int:
    """A device array's address (CUDA array interface)."""
    return int(array.__cuda_array_interface__["data"][0])


def all_aligned(arrays: Iterable[Any], boundary: int = 16) -> bool:
    """Whether every device array starts on a ``boundary``-byte address (CUDA array interface)."""
    return all(address(a) % boundary == 0 for a in arrays)


# --- epldb.run ---------------------------------------------------------------------------------------


_TORCH_DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16",
                 "int32": "int32", "int64": "int64", "int8": "int8", "uint32": "uint32"}


def as_device_array(a: Any) -> tuple[Any, str | None]:
    """A CuPy array and the catalog dtype it holds (None when the bits alone cannot tell, i.e.
    uint16 storage of bfloat16). Accepts CuPy arrays, NumPy arrays and PyTorch CUDA tensors."""
    import cupy

    if type(a).__module__.split(".")[0] == "torch":
        import torch

        name = str(a.dtype).replace("torch.", "")
        if a.dtype == torch.bfloat16:
            return cupy.from_dlpack(a.contiguous().view(torch.int16)).view(cupy.uint16), "bfloat16"
        return cupy.from_dlpack(a.contiguous()), _TORCH_DTYPES.get(name)
    arr = cupy.asarray(a)
    if arr.dtype == cupy.uint16:
        return arr, None
    name = str(arr.dtype)
    return arr, name if name in STORAGE else None


def resolve_point(realization: Realization, params: Mapping[str, Any], dtype: str | None,
                  shape: Mapping[str, int] | None = None) -> dict[str, ParamValue]:
    """The parameter point of a call: given values (checked against the declared space), the
    inputs' dtype for ``dtype``, otherwise each parameter's first declared value — or, with
    ``shape``, the first point of the declared space (in its order) whose launch.domain serves
    the shape, so that a register-resident realization picks a capacity that holds the row."""
    unknown = [k for k in params if k not in realization.params]
    if unknown:
        raise RunError("skipped", f"{realization.id} has no parameter(s) {', '.join(unknown)} (declared: {', '.join(realization.params)})")
    point: dict[str, ParamValue] = {}
    for name, values in realization.params.items():
        if name in params:
            v = params[name]
        elif name == "dtype" and dtype is not None:
            v = dtype
        else:
            v = values[0]
        if v not in values:
            raise RunError("skipped", f"{name}={v!r} is not in the declared values {list(values)} of {realization.id}")
        point[name] = v
    if shape is not None and not in_domain(realization, shape, point):
        fixed = {k: v for k, v in point.items() if k in params or k == "dtype"}
        for candidate in realization.points():
            if all(candidate.get(k) == v for k, v in fixed.items()) and in_domain(realization, shape, candidate):
                return dict(candidate)
    return point


def run(realization_id: str, *arrays: Any, catalog: "Catalog | None" = None, **params: Any) -> Any:
    """Run a realization on device arrays and return its output(s).

    ``arrays`` are the contract's inputs in order (CuPy arrays, or PyTorch CUDA tensors);
    ``params`` pick the parameter point (unspecified ones: the inputs' dtype, else the first
    declared value). Returns the single output array, or a tuple in the contract's order.
    Raises :class:`RunError` when the realization cannot be compiled, planned or launched, or CuPy
    is not installed.
    """
    cupy = cupy_module()

    catalog = catalog or default_catalog()
    r = realization_of(catalog, realization_id)
    contract = contract_of(catalog, r)
    if len(arrays) != len(contract.input_names):
        raise RunError("skipped", f"{realization_id} takes {len(contract.input_names)} input array(s) "
                       f"({', '.join(contract.input_names)}), got {len(arrays)}")
    converted = [as_device_array(a) for a in arrays]
    # The dtype parameter is the first input's (x's); other inputs may differ (an int64 target).
    dtype = params.get("dtype") or converted[0][1]
    if dtype is None and "dtype" in r.params:
        raise RunError("skipped", f"cannot tell the dtype of '{contract.input_names[0]}' (uint16 holds bfloat16?): "
                       "pass dtype=...")
    inputs = {name: a for name, (a, _) in zip(contract.input_names, converted)}
    point = resolve_point(r, params, dtype)
    point = resolve_point(r, params, dtype, contract.shape_of(inputs, point))
    for spec in contract.inputs(contract.shape_of(inputs, point), point):
        a = inputs[spec.name]
        if a.dtype != storage_dtype(spec.dtype):
            raise RunError("skipped", f"input '{spec.name}' is {a.dtype}, the point needs {spec.dtype} (stored as {STORAGE[spec.dtype]})")
        if not a.flags.c_contiguous:
            inputs[spec.name] = cupy.ascontiguousarray(a)
    shape = contract.shape_of(inputs, point)
    specs = contract.outputs(shape, point)
    if all(spec.count == 0 for spec in specs):  # zero rows: an empty result, and nothing to launch
        empty = [cupy.empty(0, dtype=storage_dtype(spec.dtype)) for spec in specs]
        return empty[0] if len(empty) == 1 else tuple(empty)
    if 0 in shape.values():
        raise RunError("skipped", f"{realization_id}: a shape with a size 0 ({shape}) but outputs to fill: the "
                       "value of an empty row is the operator's (epldb.ops gives it), not a kernel's")
    launcher = prepare(catalog, realization_id, shape, point)
    outputs = launcher.allocate_outputs()
    launcher.launch({**inputs, **outputs})
    values = [outputs[n] for n in contract.output_names]
    return values[0] if len(values) == 1 else tuple(values)
