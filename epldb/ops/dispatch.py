"""From a call to a launch: select (epldb.select) once per shape class, compile and plan once per
shape, then per call only bind pointers and launch on the caller's stream.

- The choice is cached per (subject, dtype, problem, row length, row-count octave): the shape class.
  A new shape in a class reuses its choice when the choice's point serves that shape (launch
  domain), and selects again when it does not.
- The plan (runner.prepare: the cubin loaded once per process, the launch steps resolved for the
  shape) is cached per exact shape, ``PLANS`` of them at most, least recently used dropped.
- A call writes its device pointers and the float scalars it was given (``eps``) into the step's
  argument block, made once with the plan (one C value a kernel parameter, and the array of their
  addresses cuLaunchKernel reads), and launches each step through the driver on PyTorch's current
  stream for tensors, CuPy's for CuPy arrays. A launch the driver refuses (a thread with no
  current context, or another device's) is retried once after cudaSetDevice, then reported.
  Outputs and scratch buffers come from the caller's library, so PyTorch's caching allocator and
  stream order hold.
- A warm call of PyTorch tensors goes from its key straight to the plan bound to its arguments
  (``Dispatcher.calls``, epldb.ops.warm), with no check but contiguity; a CuPy call is checked and
  finds its plan by one lookup by (op, dtype, the array's shape tuple, problem) (``Dispatcher.warm``).
  Both launch through ``enqueue``: straight to the driver's ``cuLaunchKernel`` through CuPy's
  Cython binding (a third cheaper than ctypes'), a refused launch retried as above.
"""

from __future__ import annotations

import ctypes
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from epldb.launch import ArrayArg, TensorMapArg, pick_entry
from epldb.launch.domain import in_domain
from epldb.ops.arrays import Array, OpError, empty, stream_of
from epldb.runner import RunError, cupy_module

if TYPE_CHECKING:
    from epldb.catalog import Catalog
    from epldb.select import Choice, Selector

PLANS = 512

_CU_LAUNCH: Any = None  # CuPy's binding of cuLaunchKernel, once loaded


def _cu_launch() -> Any:
    """CuPy's Cython binding of cuLaunchKernel: a third cheaper than ctypes converting its eleven
    arguments one by one (docs/GPU.md, per-call host time)."""
    global _CU_LAUNCH
    if _CU_LAUNCH is None:
        _CU_LAUNCH = cupy_module().cuda.driver.launchKernel
    return _CU_LAUNCH


def _c_value(kind: str, v: Any) -> Any:
    """The C value of one kernel parameter: a pointer (written per call), an integer written once,
    or a contract scalar (rewritten per call) as 32-bit float or int by its default's type."""
    if kind == "array":
        return ctypes.c_uint64(0)
    if kind == "value":
        return ctypes.c_int32(v)
    return (ctypes.c_int32 if isinstance(v[1], int) else ctypes.c_float)(v[1])


@dataclass(frozen=True)
class Step:
    function: Any
    fallback: Any | None  # the unaligned entry (pick_entry: arrays not 16-byte aligned, or not at one offset mod 16)
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    # The argument block: one C value per kernel parameter (integers written once), and the
    # addresses array passed as cuLaunchKernel's kernelParams; a call rewrites pointers and scalars.
    values: tuple[Any, ...]
    params: Any
    params_at: int  # its address
    pointers: tuple[tuple[Any, int], ...]  # (C value, index of its array in Plan.arrays)
    scalars: tuple[tuple[Any, int], ...]  # (C value, index of its scalar in Plan.scalars)
    split: Any | None = None  # the split entry (pick_entry: arrays at one offset mod 16, not all 16-byte aligned)
    entry_splits: bool = False  # `function` is the split entry itself

    @classmethod
    def make(cls, function: Any, fallback: Any | None, grid: tuple[int, int, int], block: tuple[int, int, int],
             shared: int, args: tuple[tuple[str, Any], ...], arrays: list[str],
             scalars: list[tuple[str, float | int]], split: Any | None = None, entry_splits: bool = False) -> "Step":
        """``args``: ("array", name) | ("scalar", (name, default: float or int)) | ("value", int) per
        kernel parameter. Names new to ``arrays`` and ``scalars`` (the plan's, over its steps) are
        appended to them; the step refers to each by its index there."""
        values = tuple(_c_value(kind, v) for kind, v in args)
        params = (ctypes.c_void_p * max(len(values), 1))(*(ctypes.addressof(v) for v in values))
        pointers, scalar_slots = [], []
        for c, (kind, v) in zip(values, args):
            if kind == "array":
                if v not in arrays:
                    arrays.append(v)
                pointers.append((c, arrays.index(v)))
            elif kind == "scalar":
                names = [name for name, _ in scalars]
                if v[0] not in names:
                    scalars.append(v)
                    names.append(v[0])
                scalar_slots.append((c, names.index(v[0])))
        return cls(function, fallback, grid, block, shared, values, params, ctypes.addressof(params), tuple(pointers),
                   tuple(scalar_slots), split, entry_splits)


@dataclass(frozen=True)
class Plan:
    choice: "Choice"
    steps: tuple[Step, ...]
    scratch: tuple[tuple[str, str, int, bool], ...]  # name, dtype, count, zeroed
    arrays: tuple[str, ...] = ()  # every array a step takes, in the order launch() wants their pointers
    scalars: tuple[tuple[str, float | int], ...] = ()  # every contract scalar a step takes, with its default


class Dispatcher:
    """One per process (``dispatcher()``): the catalog, its selector and the caches."""

    def __init__(self, catalog: "Catalog | None" = None) -> None:
        self._catalog = catalog
        self._selector: "Selector | None" = None
        self.choices: dict[tuple[Any, ...], "Choice"] = {}
        self.plans: OrderedDict[tuple[Any, ...], Plan] = OrderedDict()
        # The warm path: (subject, dtype, the array's shape tuple, problem items) -> its plan.
        self.warm: dict[tuple[Any, ...], Plan] = {}
        # PyTorch's warm path (epldb.ops.warm): an op's key (warm.tensor_key) -> its bound call.
        self.calls: dict[tuple[Any, ...], Any] = {}
        # Dynamic shared memory granted per function: plans of several shapes share one function, so
        # a grant only ever grows (a smaller one would break the larger plan cached before it).
        self._granted: dict[int, int] = {}
        # Loaded modules are the process's, made on the first device used (epldb.runner keeps one
        # per realization), so the ops serve that one device.
        self.device: int | None = None
        # Argument blocks are shared by every call of a plan: a call fills and launches under this.
        self._lock = threading.Lock()

    @property
    def catalog(self) -> "Catalog":
        if self._catalog is None:
            from epldb.catalog import default_catalog

            self._catalog = default_catalog()
        return self._catalog

    @property
    def selector(self) -> "Selector":
        if self._selector is None:
            from epldb.select import Selector

            self._selector = Selector(self.catalog)
        return self._selector

    def choose(self, subject: str, shape: Mapping[str, int], dtype: str, problem: Mapping[str, Any]) -> "Choice":
        from epldb.device import device_info
        from epldb.select import SelectError

        axis = "cols" if "cols" in shape else next(iter(shape))
        rows = shape.get("rows", 1)
        klass = (subject, dtype, tuple(sorted(problem.items())), shape[axis], math.ceil(math.log2(max(rows, 1))))
        choice = self.choices.get(klass)
        if choice is not None:
            r = self.catalog.realizations[choice.realization]
            if in_domain(r, shape, choice.point):
                return choice
        try:
            choice = self.selector.select(subject, dict(shape), dtype, device_info().slug, **problem)
        except SelectError as exc:
            raise OpError(str(exc)) from None
        self.choices[klass] = choice
        return choice

    def plan(self, subject: str, shape: Mapping[str, int], dtype: str, problem: Mapping[str, Any]) -> Plan:
        from epldb.occupancy import allow_dynamic_shared
        from epldb.runner import prepare

        key = (subject, dtype, tuple(problem.items()), tuple(shape.items()))  # built in one order by the ops
        plan = self.plans.get(key)
        if plan is not None:
            self.plans.move_to_end(key)
            return plan
        choice = self.choose(subject, shape, dtype, problem)
        launcher = prepare(self.catalog, choice.realization, shape, choice.point)
        fallbacks = launcher.fallbacks or [None] * len(launcher.functions)
        splits = launcher.splits or [None] * len(launcher.functions)
        steps = []
        arrays: list[str] = []
        scalars: list[tuple[str, float | int]] = []
        for fn, fallback, split, step in zip(launcher.functions, fallbacks, splits, launcher.plan.steps):
            for f in (fn, fallback, split):
                if f is not None and step.shared_bytes > self._granted.get(id(f), 0):
                    allow_dynamic_shared(f, step.shared_bytes)
                    self._granted[id(f)] = step.shared_bytes
            args: list[tuple[str, Any]] = []
            for a in step.args:
                if isinstance(a, ArrayArg):
                    args.append(("array", a.name))
                elif isinstance(a, TensorMapArg):
                    raise RunError("skipped", f"{choice.realization} takes tensor map '{a.name}', which epldb.ops "
                                   "does not encode yet; epldb.run launches it")
                elif a.text in launcher.contract.scalar_args:  # the caller's value at run time
                    args.append(("scalar", (a.text, a.value)))
                else:
                    args.append(("value", int(a.value)))
            steps.append(Step.make(fn, fallback, step.grid, step.block, step.shared_bytes, tuple(args), arrays,
                                   scalars, split, step.entry_splits))
        scratch = tuple((s.name, s.dtype, s.count, s.zero) for s in launcher.plan.scratch)
        plan = Plan(choice, tuple(steps), scratch, tuple(arrays), tuple(scalars))
        self.plans[key] = plan
        if len(self.plans) > PLANS:
            self.plans.popitem(last=False)
            self.warm.clear()  # refilled by the calls that follow, each once
            self.calls.clear()
        return plan

    def on_device(self, x: Array) -> None:
        """The device check: OpError for arrays on a second GPU (before anything is planned there)."""
        if self.device is None:
            self.device = x.device
        elif x.device != self.device:
            raise OpError(f"x is on CUDA device {x.device}, and epldb.ops runs on one GPU a process: device "
                          f"{self.device}, the first it was called on (its kernels are loaded there)")

    def launch(self, plan: Plan, x: Array, pointers: dict[str, int], scalars: Mapping[str, float | int]) -> list[Any]:
        """Launch the plan's steps; returns the scratch buffers (kept alive until the launch is queued)."""
        keep: list[Any] = []
        for name, dtype, count, zero in plan.scratch:
            buf, ptr = empty(x, (max(count, 1),), dtype)
            if zero:
                buf.fill(0) if x.library == "cupy" else buf.zero_()
            pointers[name] = ptr
            keep.append(buf)
        self.enqueue(plan, x.device, [pointers[name] for name in plan.arrays],
                     [scalars.get(name, default) for name, default in plan.scalars], stream_of(x))
        return keep

    def enqueue(self, plan: Plan, device: int, pointers: Sequence[int], scalars: Sequence[float | int],
                stream: int) -> None:
        """Write ``pointers`` (in ``plan.arrays`` order) and ``scalars`` (``plan.scalars`` order) into
        each step's argument block and launch it on ``stream``: the one launch loop of both paths."""
        cu = _CU_LAUNCH or _cu_launch()
        with self._lock:
            for step in plan.steps:
                fn = step.function
                for c, i in step.pointers:
                    c.value = pointers[i]
                if step.fallback is not None or step.split is not None:
                    which = pick_entry(step.entry_splits, step.split is not None, step.fallback is not None,
                                       [pointers[i] for _, i in step.pointers])
                    fn = (fn, step.split, step.fallback)[which]
                for c, i in step.scalars:
                    c.value = scalars[i]
                try:
                    cu(fn.ptr, *step.grid, *step.block, step.shared, stream, step.params_at, 0)
                except Exception:  # the binding's CUDADriverError
                    self._retry(plan, device, fn, step, stream)

    def _retry(self, plan: Plan, device: int, fn: Any, step: Step, stream: int) -> None:
        """A launch the driver refused, once more under cudaSetDevice; its error reported.

        A thread that never touched CUDA has no current context, and one that switched devices has
        another's: cudaSetDevice makes x's primary context current (CuPy's Device context skips it
        when the runtime already reports that device)."""
        cupy = cupy_module()
        driver = cupy.cuda.driver
        try:
            cupy.cuda.runtime.setDevice(device)
            driver.launchKernel(fn.ptr, *step.grid, *step.block, step.shared, stream, step.params_at, 0)
        except (driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError) as exc:
            raise RunError("runtime-error", f"{plan.choice.realization}: the launch failed: {exc}") from exc


_DISPATCHER: Dispatcher | None = None


def dispatcher() -> Dispatcher:
    global _DISPATCHER
    if _DISPATCHER is None:
        _DISPATCHER = Dispatcher()
    return _DISPATCHER
