"""Launch plans: from a realization's declarative ``launch:`` block to concrete launches.

``resolve_plan`` evaluates the plan for one shape and parameter point (grid, block, dynamic shared
memory, cluster, scratch buffers, arguments) and checks it against the launch limits;
``check_plan`` is the static check lint runs without a GPU: every expression parses, every name is
a parameter, a shape variable of the contract, a scratch buffer, a contract array or (bare, as an
argument) one of the contract's float scalars, and the plan resolves within the limits at every
parameter point and every verification shape.

A ``grid`` may also read ``resident_blocks``: the blocks of the step's entry the device holds at
once at the step's block size and dynamic shared memory (clusters the GPCs place, times their
size, for a kernel with compile-time cluster dimensions). A persistent grid sized by it is resident
by construction on any device. Only the runner knows it (the driver's occupancy calculator, after
loading the build); without a GPU the plan resolves with a stand-in of one block per SM, so the
static checks exercise the expression.

Both return problems as values, located at the YAML field (``launch.steps[0].grid``) with the
column inside the expression in the message.
"""

from __future__ import annotations

import json

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from epldb.launch.domain import check_domain, in_domain, shapes_for_point
from epldb.launch.env import ITEMSIZE, plan_env
from epldb.launch.expr import Expr, ExprError, evaluate, parse
from epldb.launch.tensor_map import TensorMapArg, check_tensor_map, contiguous_strides
from epldb.problems import Problem, json_path
from epldb.records import Realization, Target

if TYPE_CHECKING:
    from epldb.contracts.base import Contract

RULE = "launch-plan"

ArrayRole = Literal["input", "output", "scratch"]


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

#: The name a ``grid`` expression reads for the blocks the device holds at once (module docstring).
RESIDENT = "resident_blocks"

#: resident(entry, block, shared_bytes) -> blocks of that entry the device holds at once.
ResidentBlocks = Callable[[str, tuple[int, int, int], int], int]


@dataclass(frozen=True)
class LaunchLimits:
    """What a launch may ask for. The lint reads the profiles of a record's targets
    (catalog/targets/, :meth:`of`), the runner the device's; the defaults, for callers with neither,
    are sm_90a's profile (a test keeps them equal)."""

    max_threads_per_block: int = 1024
    max_block: tuple[int, int, int] = (1024, 1024, 64)
    max_grid: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    max_shared_bytes: int = 227 * 1024  # dynamic shared memory per block after opting in
    max_cluster_blocks: int = 8  # the portable cluster size
    sms: int = 132  # streaming multiprocessors: resident_blocks' stand-in without a GPU is one per SM

    @classmethod
    def of(cls, target: Target) -> LaunchLimits:
        """The limits of a target's profile (its reference device's SM count standing in for the GPU's)."""
        lim = target.limits
        if lim is None:
            return cls()
        return cls(lim.max_threads_per_block, lim.max_block, lim.max_grid, lim.max_shared_bytes_per_block,
                   lim.max_cluster_blocks, lim.reference_sms)

    @classmethod
    def tightest(cls, targets: Sequence[Target]) -> LaunchLimits:
        """What a launch may ask for on every one of ``targets``: a plan that fits these fits each."""
        each = [cls.of(t) for t in targets]
        if not each:
            return cls()
        return cls(min(x.max_threads_per_block for x in each),
                   tuple(min(x.max_block[i] for x in each) for i in range(3)),  # type: ignore[arg-type]
                   tuple(min(x.max_grid[i] for x in each) for i in range(3)),  # type: ignore[arg-type]
                   min(x.max_shared_bytes for x in each), min(x.max_cluster_blocks for x in each),
                   min(x.sms for x in each))


@dataclass(frozen=True)
class ArrayArg:
    """A device array argument: a contract input or output, or a scratch buffer."""

    name: str
    role: ArrayRole


@dataclass(frozen=True)
class ScalarArg:
    """A scalar argument: an integer expression, passed as a 32-bit signed integer (the kernels'
    ``int n``), or one of the contract's scalars (``Contract.scalar_args``): a float (a norm's
    ``eps``) passed as a 32-bit float (``float eps``), an int (cross-entropy's ``ignore_index``) as
    a 32-bit int."""

    value: int | float
    text: str
    dtype: Literal["int32", "float32"] = "int32"


#: What a bare name in a step's ``args`` binds to: a contract array or scratch buffer (its role),
#: a float scalar of the contract, or a tensor map of ``launch.tensor_maps`` (the argument itself).
Binding = ArrayRole | ScalarArg | TensorMapArg


@dataclass(frozen=True)
class ScratchBuffer:
    name: str
    dtype: str
    count: int
    zero: bool

    @property
    def nbytes(self) -> int:
        return self.count * ITEMSIZE[self.dtype]


@dataclass(frozen=True)
class ResolvedStep:
    index: int
    entry: str  # the entry this shape takes (the split or unaligned one when unaligned_when ruled it so)
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    cluster: tuple[int, int, int] | None
    args: tuple[ArrayArg | ScalarArg | TensorMapArg, ...]
    # The entry to launch instead when an array argument turns out not 16-byte aligned (None: no
    # alternative, or `entry` is already the unaligned one); with a split entry, only when the array
    # arguments do not all sit at one address mod 16.
    unaligned_entry: str | None = None
    # The record claims every block of the grid is resident at once (checked on a GPU).
    resident: bool = False
    # What resident_blocks read when the grid names it (the device's answer, or the stand-in).
    resident_blocks: int | None = None
    # The entry that splits its rows by address (launch.steps[].split_entry), taken instead of the
    # aligned `entry` when the array arguments are not all 16-byte aligned but sit at one address
    # mod 16 (None: none, or `entry` is already it: entry_splits).
    split_entry: str | None = None
    entry_splits: bool = False  # `entry` is the split entry: it needs one address mod 16, not 16-byte alignment

    def entry_for(self, addresses: Iterable[int]) -> str:
        """The entry to launch for array arguments at these device addresses (pick_entry)."""
        return [self.entry, self.split_entry or self.entry, self.unaligned_entry or self.entry][
            pick_entry(self.entry_splits, self.split_entry is not None, self.unaligned_entry is not None, addresses)]


def pick_entry(entry_splits: bool, has_split: bool, has_unaligned: bool, addresses: Iterable[int]) -> int:
    """Which entry of a step serves array arguments at these device addresses: 0 the step's entry,
    1 its split entry, 2 its unaligned entry. The aligned entry needs every array 16-byte aligned;
    the split one (kernels' RowPath kSplitPath) every array at one address mod 16, so that each row
    segment splits the same way in all of them (kernels/include/epl/group/walk.cuh); the unaligned
    one nothing. A step without the entry a case needs launches its entry (a kernel that tests the
    arrays itself)."""
    offsets = {a % 16 for a in addresses}
    congruent = len(offsets) <= 1
    if entry_splits:
        return 0 if congruent or not has_unaligned else 2
    if offsets <= {0}:
        return 0
    if has_split and congruent:
        return 1
    return 2 if has_unaligned else 0

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


@dataclass(frozen=True)
class ResolvedPlan:
    """The plan of one realization for one shape and point; ``problems`` non-empty means unusable."""

    realization_id: str
    env: dict[str, Any]
    scratch: tuple[ScratchBuffer, ...] = ()
    steps: tuple[ResolvedStep, ...] = ()
    tensor_maps: tuple[TensorMapArg, ...] = ()
    problems: tuple[Problem, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


def _fmt_context(env: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in env.items() if not k.endswith("_bytes"))


class _Resolver:
    """Evaluates one plan, collecting problems located at the fields they come from."""

    def __init__(self, realization: Realization, env: Mapping[str, Any], bindings: Mapping[str, Binding]) -> None:
        self.r = realization
        self.env = env
        self.bindings = dict(bindings)
        self.problems: list[Problem] = []

    def problem(self, path: tuple[str | int, ...], message: str, severity: str = "error") -> None:
        self.problems.append(
            Problem(self.r.loc(*path), message, RULE, json_path(path), severity)  # type: ignore[arg-type]
        )

    def value(self, path: tuple[str | int, ...], label: str, source: Any, in_list: bool = False,
              env: Mapping[str, Any] | None = None) -> int | None:
        env = self.env if env is None else env
        expr = parse(source)
        if isinstance(expr, ExprError):
            self.problem(path, _expr_message(label, source, expr, in_list))
            return None
        for name, col in expr.names():
            if name in self.bindings:
                self.problem(path, _expr_message(label, source, ExprError(col, _not_a_number(name, self.bindings[name]))))
                return None
        result = evaluate(expr, env)
        if isinstance(result, ExprError):
            self.problem(path, _expr_message(label, source, result) + f" (at {_fmt_context(env)})")
            return None
        return result

    def dims(self, path: tuple[str | int, ...], label: str, source: Any,
             env: Mapping[str, Any] | None = None) -> tuple[int, int, int] | None:
        items = source if isinstance(source, list) else [source]
        if not 1 <= len(items) <= 3:
            self.problem(path, f"{label} takes one to three dimensions, got {len(items)}")
            return None
        out: list[int] = []
        for j, item in enumerate(items):
            sub = path + (j,) if isinstance(source, list) else path
            v = self.value(sub, f"{label}.{'xyz'[j]}" if isinstance(source, list) else label, item,
                           isinstance(source, list), env)
            if v is None:
                return None
            out.append(v)
        while len(out) < 3:
            out.append(1)
        return out[0], out[1], out[2]


def _expr_message(label: str, source: Any, err: ExprError, in_list: bool = False) -> str:
    hint = ""
    if in_list and "to close the '('" in err.message:
        # YAML splits an unquoted [ceil_div(n, b), 1] at the comma inside the call.
        hint = " (inside a YAML [a, b] list, quote an expression that contains a comma)"
    text = str(source)
    if len(text) > 60:  # the field's location and the column say where; a page of it says nothing
        text = text[:57] + "..."
    return f"{label} expression {text!r}, column {err.col}: {err.message}{hint}"


def _not_a_number(name: str, binding: Binding) -> str:
    """Why a bound name cannot stand in an integer expression."""
    if isinstance(binding, ScalarArg):
        return f"'{name}' is a float scalar of the contract: pass it bare as an argument, not in an expression"
    if isinstance(binding, TensorMapArg):
        return f"'{name}' is a tensor map: pass it bare as an argument, not in an expression"
    return f"'{name}' is an array, not a number"


def resolve_plan(
    realization: Realization,
    env: Mapping[str, Any],
    arrays: Mapping[str, Binding] | Sequence[str] = (),
    limits: LaunchLimits = LaunchLimits(),
    resident: ResidentBlocks | None = None,
) -> ResolvedPlan:
    """Evaluate ``realization``'s launch plan with ``env`` (from :func:`plan_env`).

    ``arrays`` binds the names ``args`` may pass bare (from :func:`contract_arrays`: the
    contract's arrays by role and its float scalars; or a sequence of names, all inputs); a bare
    name among them or among the scratch buffers becomes that argument. ``resident`` answers a
    grid's ``resident_blocks`` (the runner's occupancy query); without it the stand-in is
    ``limits.sms``, one block per SM.
    """
    roles: dict[str, Binding] = (
        dict(arrays) if isinstance(arrays, Mapping) else {a: "input" for a in arrays}  # type: ignore[misc]
    )
    res = _Resolver(realization, env, roles)
    plan = realization.launch
    if not plan:
        res.problem(("status",), "the realization has no launch plan, so it cannot be run")
        return ResolvedPlan(realization.id, dict(env), problems=tuple(res.problems))

    scratch: list[ScratchBuffer] = []
    for name, spec in (plan.get("scratch") or {}).items():
        base = ("launch", "scratch", name)
        if name in roles or name in env:
            res.problem(base, f"scratch buffer '{name}' shadows a contract array, shape variable or parameter")
        count = res.value(base + ("count",), f"scratch '{name}' count", spec.get("count"))
        if count is None:
            continue
        if count < 0:
            res.problem(base + ("count",), f"scratch '{name}' count is {count}; it must not be negative")
            continue
        scratch.append(ScratchBuffer(name, spec["dtype"], count, bool(spec.get("zero", False))))
    for s in scratch:
        roles.setdefault(s.name, "scratch")
    maps = _resolve_tensor_maps(res, plan.get("tensor_maps") or {}, roles)
    for m in maps:
        roles[m.name] = m

    entry_names = [e.name for e in realization.kernel.entries]
    steps: list[ResolvedStep] = []
    for i, step in enumerate(plan.get("steps") or []):
        base: tuple[str | int, ...] = ("launch", "steps", i)
        before = len(res.problems)
        entry = step.get("entry")
        if entry not in entry_names:
            res.problem(base + ("entry",), f"entry '{entry}' is not one of kernel.entries ({', '.join(entry_names)})")
        unaligned = step.get("unaligned_entry")
        if unaligned is not None and unaligned not in entry_names:
            res.problem(base + ("unaligned_entry",),
                        f"unaligned_entry '{unaligned}' is not one of kernel.entries ({', '.join(entry_names)})")
        if "unaligned_when" in step and unaligned is None and step.get("split_entry") is None:
            res.problem(base + ("unaligned_when",), "unaligned_when without unaligned_entry: name the entry to launch "
                        "when it is nonzero, or remove it")
        split = step.get("split_entry")
        if split is not None and split not in entry_names:
            res.problem(base + ("split_entry",),
                        f"split_entry '{split}' is not one of kernel.entries ({', '.join(entry_names)})")
        ruled_out = res.value(base + ("unaligned_when",), "unaligned_when", step.get("unaligned_when", 0))
        entry_splits = False
        if split is not None and ruled_out:
            entry, split, entry_splits = split, None, True  # rows off 16-byte boundaries: the split entry
        elif unaligned is not None and ruled_out:
            entry, unaligned = unaligned, None  # this shape cannot take the aligned entry at all
        block = res.dims(base + ("block",), "block", step.get("block"))
        shared = res.value(base + ("shared_bytes",), "shared_bytes", step.get("shared_bytes", 0))
        grid_env, held = env, None
        if block is not None and shared is not None and _reads_resident(step.get("grid")):
            held = resident(str(entry), block, shared) if resident is not None else limits.sms
            grid_env = {**env, RESIDENT: held}
        grid = res.dims(base + ("grid",), "grid", step.get("grid"), grid_env)
        cluster = res.dims(base + ("cluster",), "cluster", step["cluster"]) if "cluster" in step else None
        args: list[ArrayArg | ScalarArg] = []
        for k, a in enumerate(step.get("args") or []):
            if isinstance(a, str) and a.strip() in roles:
                bound = roles[a.strip()]
                args.append(bound if isinstance(bound, (ScalarArg, TensorMapArg)) else ArrayArg(a.strip(), bound))
                continue
            v = res.value(base + ("args", k), f"argument {k + 1}", a, True)
            if v is None:
                continue
            if not INT32_MIN <= v <= INT32_MAX:
                res.problem(base + ("args", k), f"argument {k + 1} is {v}, outside the 32-bit int range the kernel takes (at {_fmt_context(env)})")
                continue
            args.append(ScalarArg(v, str(a)))
        if len(res.problems) > before:
            continue
        assert grid is not None and block is not None and shared is not None
        _check_limits(res, base, grid, block, shared, cluster, limits)
        if len(res.problems) > before:
            continue
        steps.append(ResolvedStep(i, str(entry), grid, block, shared, cluster, tuple(args),
                                  str(unaligned) if unaligned is not None else None, bool(step.get("resident", False)),
                                  held, str(split) if split is not None else None, entry_splits))
    return ResolvedPlan(realization.id, dict(env), tuple(scratch), tuple(steps), tuple(maps), tuple(res.problems))


def _map_dtype(spec: Mapping[str, Any], env: Mapping[str, Any]) -> str:
    """A tensor map's element type: a parameter's value (default the parameter ``dtype``) or a name."""
    name = str(spec.get("dtype", "dtype"))
    value = env.get(name, name)
    return value if isinstance(value, str) else name


def _resolve_tensor_maps(res: _Resolver, specs: Mapping[str, Any], roles: Mapping[str, Binding]) -> list[TensorMapArg]:
    """The plan's tensor maps at this shape and point, each checked against the driver's rules
    (epldb/launch/tensor_map.py); a map with a problem is left out (and its problem reported)."""
    out: list[TensorMapArg] = []
    for name, spec in specs.items():
        base: tuple[str | int, ...] = ("launch", "tensor_maps", name)
        if name in roles or name in res.env:
            res.problem(base, f"tensor map '{name}' shadows a contract array, scratch buffer, shape variable or parameter")
            continue
        array = spec.get("array")
        if roles.get(array) not in ("input", "output", "scratch"):
            res.problem(base + ("array",), f"tensor map '{name}' describes '{array}', which is no contract array or "
                        "scratch buffer")
            continue
        dtype = _map_dtype(spec, res.env)
        sides: dict[str, list[int]] = {}
        for key in ("dims", "box", "strides"):
            if key not in spec:
                continue
            values = [res.value(base + (key, j), f"tensor map '{name}' {key}[{j}]", v, True)
                      for j, v in enumerate(spec[key])]
            if any(v is None for v in values):
                break
            sides[key] = [int(v) for v in values if v is not None]
        else:
            dims, box = sides["dims"], sides["box"]
            item = ITEMSIZE.get(dtype, 0)
            strides = ([s * item for s in sides["strides"]] if "strides" in sides
                       else list(contiguous_strides(dtype, dims)) if item else [])
            swizzle = str(spec.get("swizzle", "none"))
            why = check_tensor_map(dtype, dims, strides, box, swizzle)
            if why:
                res.problem(base, f"tensor map '{name}': " + "; ".join(why) + f" (at {_fmt_context(res.env)})")
                continue
            out.append(TensorMapArg(name, str(array), dtype, tuple(dims), tuple(strides), tuple(box), swizzle,
                                    str(spec.get("oob", "zero"))))
    return out


def _reads_resident(source: Any) -> bool:
    """Whether a grid field (an expression or a list of them) names ``resident_blocks``."""
    items = source if isinstance(source, list) else [source]
    for item in items:
        expr = parse(item)
        if not isinstance(expr, ExprError) and any(name == RESIDENT for name, _ in expr.names()):
            return True
    return False


def _check_limits(
    res: _Resolver,
    base: tuple[str | int, ...],
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    shared: int,
    cluster: tuple[int, int, int] | None,
    limits: LaunchLimits,
) -> None:
    ctx = f" (at {_fmt_context(res.env)})"
    for axis, (g, gmax) in enumerate(zip(grid, limits.max_grid)):
        if not 1 <= g <= gmax:
            res.problem(base + ("grid",), f"grid.{'xyz'[axis]} is {g}; it must be between 1 and {gmax}{ctx}")
    for axis, (b, bmax) in enumerate(zip(block, limits.max_block)):
        if not 1 <= b <= bmax:
            res.problem(base + ("block",), f"block.{'xyz'[axis]} is {b}; it must be between 1 and {bmax}{ctx}")
    threads = block[0] * block[1] * block[2]
    if threads > limits.max_threads_per_block:
        res.problem(base + ("block",), f"block has {threads} threads; at most {limits.max_threads_per_block} are allowed{ctx}")
    if not 0 <= shared <= limits.max_shared_bytes:
        res.problem(base + ("shared_bytes",), f"shared_bytes is {shared}; it must be between 0 and {limits.max_shared_bytes}{ctx}")
    if cluster is not None:
        size = cluster[0] * cluster[1] * cluster[2]
        if min(cluster) < 1 or size > limits.max_cluster_blocks:
            res.problem(base + ("cluster",), f"cluster {cluster} has {size} blocks; between 1 and {limits.max_cluster_blocks} are allowed{ctx}")
        elif any(g % c for g, c in zip(grid, cluster)):
            res.problem(base + ("cluster",), f"grid {grid} is not a multiple of cluster {cluster}{ctx}")


def plans_in_domain(realization: Realization, contract: "Contract", shapes: Sequence[Mapping[str, int]]
                    ) -> Iterator[tuple[Mapping[str, int], dict[str, Any], ResolvedPlan]]:
    """(shape, point, plan) for every shape of ``shapes`` and every parameter point whose domain
    serves it, the plan resolved with the contract's arrays as verify and bench launch it (its
    problems left for the caller to judge)."""
    arrays = contract_arrays(contract)
    for shape in shapes:
        for point in realization.points():
            env = plan_env(shape, point)
            if in_domain(realization, shape, point):
                yield shape, point, resolve_plan(realization, env, arrays)


def contract_arrays(contract: "Contract") -> dict[str, Binding]:
    """What a plan's ``args`` may pass bare from the contract: its inputs and outputs (by role)
    and its scalars (``scalar_args``: float32 or int32 arguments of the contract's value)."""
    roles: dict[str, Binding] = {n: "input" for n in contract.input_names}
    roles.update({n: "output" for n in contract.output_names})
    roles.update({n: ScalarArg(v, n, "int32") if isinstance(v, int) else ScalarArg(float(v), n, "float32")
                  for n, v in contract.scalar_args.items()})
    return roles


def _parse_all(realization: Realization) -> list[tuple[tuple[str | int, ...], str, Any, bool, bool]]:
    """Every expression field of the plan: (json path, label, source, may be a bare array name,
    is an item of a YAML list)."""
    plan = realization.launch or {}
    out: list[tuple[tuple[str | int, ...], str, Any, bool, bool]] = []
    for name, spec in (plan.get("scratch") or {}).items():
        out.append((("launch", "scratch", name, "count"), f"scratch '{name}' count", spec.get("count"), False, False))
    for name, spec in (plan.get("tensor_maps") or {}).items():
        for key in ("dims", "box", "strides"):
            for j, item in enumerate(spec.get(key) or []):
                out.append((("launch", "tensor_maps", name, key, j), f"tensor map '{name}' {key}[{j}]", item, False, True))
    for i, step in enumerate(plan.get("steps") or []):
        base: tuple[str | int, ...] = ("launch", "steps", i)
        for key in ("grid", "block", "cluster"):
            if key not in step:
                continue
            src = step[key]
            if isinstance(src, list):
                for j, item in enumerate(src):
                    out.append((base + (key, j), f"{key}.{'xyz'[j]}", item, False, True))
            else:
                out.append((base + (key,), key, src, False, False))
        for key in ("shared_bytes", "unaligned_when"):
            if key in step:
                out.append((base + (key,), key, step[key], False, False))
        for k, a in enumerate(step.get("args") or []):
            out.append((base + ("args", k), f"argument {k + 1}", a, True, True))
    return out


def expression_fields(realization: Realization) -> list[Any]:
    """The source of every expression field of a realization's launch plan (lint rule params-used
    reads the names they use)."""
    return [source for _, _, source, _, _ in _parse_all(realization)]


def check_plan(realization: Realization, contract: "Contract | None", limits: LaunchLimits = LaunchLimits()
               ) -> list[Problem]:
    """Static check of a launch plan, without a GPU (for lint), within ``limits`` (the lint passes
    the tightest of the realization's targets)."""
    problems: list[Problem] = []

    def add(path: tuple[str | int, ...], message: str, severity: str = "error") -> None:
        problems.append(Problem(realization.loc(*path), message, RULE, json_path(path), severity))  # type: ignore[arg-type]

    if not realization.launch:
        if contract is not None:
            add(("id",), "no launch plan: the realization cannot be run, verified or timed", "warning")
        return problems

    if contract is None:
        # Without a contract there are no array or shape names to check against: say that once,
        # and still check that every expression parses.
        kind = realization.subject_kind
        add(("launch",), f"{kind} '{realization.subject}' names no measurement contract, so this plan's "
            f"arrays and shape variables cannot be checked or run; add `contract:` to the {kind}")
        for path, label, source, _, in_list in _parse_all(realization):
            expr = parse(source)
            if isinstance(expr, ExprError):
                add(path, _expr_message(label, source, expr, in_list))
        return problems

    roles = contract_arrays(contract)
    scratch = set((realization.launch.get("scratch") or {}))
    tensor_maps = realization.launch.get("tensor_maps") or {}
    shape_vars = set(contract.shape_vars)
    numbers = set(realization.params) | shape_vars
    for p, values in realization.params.items():
        if any(isinstance(v, str) and v in ITEMSIZE for v in values):
            numbers.add(f"{p}_bytes")
    bindings: dict[str, Binding] = {**roles, **{s: "scratch" for s in scratch}}
    for name, spec in tensor_maps.items():  # the runner encodes them; here only the name binds
        bindings.setdefault(name, TensorMapArg(name, str(spec.get("array")), "", (), (), ()))

    if RESIDENT in realization.params:
        add(("params", RESIDENT), f"'{RESIDENT}' is the name a grid reads for the blocks the device holds at "
            "once: rename the parameter")
    missing = [p for p in contract.required_params if p not in realization.params]
    if missing:
        add(("params",), f"contract '{contract.name}' needs parameter(s) {', '.join(missing)}")

    parsed_ok = True
    # A parameter an expression reads must be an integer at every value; a value that is not
    # ('x', true) is one message at the value, not one per expression that reads it.
    read = {name for _, _, source, _, _ in _parse_all(realization)
            if isinstance(expr := parse(source), Expr) for name, _ in expr.names()}
    for name in sorted(read & set(realization.params)):
        for i, value in enumerate(realization.params[name]):
            if isinstance(value, bool) or not isinstance(value, int):
                add(("params", name, i), f"{json.dumps(value)} is not an integer, but launch expressions read "
                    f"'{name}': make each value an integer, or give the kernel a parameter of its own")
                parsed_ok = False
                break
    for path, label, source, may_be_array, in_list in _parse_all(realization):
        expr = parse(source)
        if isinstance(expr, ExprError):
            add(path, _expr_message(label, source, expr, in_list))
            parsed_ok = False
            continue
        if may_be_array and isinstance(expr, Expr) and expr.bare_name in bindings:
            continue
        for name, col in expr.names():
            if name in read and name in realization.params and not parsed_ok and any(
                    isinstance(v, bool) or not isinstance(v, int) for v in realization.params[name]):
                continue  # reported at the value above
            if name in bindings:
                add(path, _expr_message(label, source, ExprError(col, _not_a_number(name, bindings[name]))))
                parsed_ok = False
            elif name == RESIDENT and name not in numbers:
                if path[:2] != ("launch", "steps") or path[3] != "grid":
                    add(path, _expr_message(label, source, ExprError(
                        col, f"'{RESIDENT}' depends on the block size and shared memory: only a grid may read it")))
                    parsed_ok = False
            elif name not in numbers:
                known = ", ".join(sorted(numbers | set(bindings)))
                add(path, _expr_message(label, source, ExprError(col, f"unknown name '{name}' (known: {known})")))
                parsed_ok = False

    entry_names = [e.name for e in realization.kernel.entries]
    passed: set[str] = set()
    for i, step in enumerate(realization.launch.get("steps") or []):
        for key in ("entry", "unaligned_entry", "split_entry"):
            if (key in step or key == "entry") and step.get(key) not in entry_names:
                add(("launch", "steps", i, key), f"{key} '{step.get(key)}' is not one of kernel.entries ({', '.join(entry_names)})")
                parsed_ok = False
        if "unaligned_when" in step and "unaligned_entry" not in step and "split_entry" not in step:
            add(("launch", "steps", i, "unaligned_when"), "unaligned_when without unaligned_entry: name the entry "
                "to launch when it is nonzero, or remove it")
            parsed_ok = False
        passed.update(a.strip() for a in step.get("args") or [] if isinstance(a, str))
    passed.update(str(spec.get("array")) for name, spec in tensor_maps.items() if name in passed)
    for name, bound in roles.items():
        if name not in passed:
            kind = "scalar" if isinstance(bound, ScalarArg) else "array"
            add(("launch", "steps"), f"contract {kind} '{name}' is passed to no step", "warning")

    # The shapes verify runs each point at (the contract's inside its domain, or fitted into it),
    # found once for the domain check and the resolution below.
    served = ([(point, shapes_for_point(realization, point, contract.verify_shapes)) for point in realization.points()]
              if parsed_ok and realization.params else None)
    domain_problems = check_domain(realization, contract, numbers, served)
    problems.extend(domain_problems)
    if not parsed_ok or domain_problems or not realization.params:
        return problems
    # Every point at every shape verify runs it at must resolve within the targets' limits; report
    # the first failure per field so one bad expression does not produce a problem per point.
    seen: set[str] = {p.json_path for p in problems}
    for point, shapes in served or []:
        if contract.required_params and any(p not in point for p in contract.required_params):
            continue
        for shape in shapes:
            resolved = resolve_plan(realization, plan_env(shape, point), roles, limits)
            for p in resolved.problems:
                if p.json_path not in seen:
                    seen.add(p.json_path)
                    problems.append(p)
    return problems
