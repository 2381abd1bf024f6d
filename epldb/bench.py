"""Timing on the GPU: realizations, their peers and the device's ceilings, in one run.

Method (METHOD.md of the lab's device notes, and the usual pitfalls):

* warm-up first (module load, NVRTC, torch.compile and allocator effects stay out of the numbers);
* CUDA events around every repetition; the median and p10/p90 over many repetitions (enough for
  about 50 ms of device time, between 20 and 200);
* the launches are queued behind a short device-side sleep, so the host's launch overhead is
  hidden and small kernels are timed as the GPU runs them back to back, not as Python issues them;
* inputs rotate over enough independent buffer sets that the working set is at least 4x the L2
  (60 MB on an H200), so no repetition finds its input in cache;
* GB/s from the contract's minimal bytes moved, GFLOP/s from its flops, and the fraction of the
  ceiling the contract names (read bandwidth for reductions);
* the ceilings are measured in the same run: device copy bandwidth (cudaMemcpy device to device,
  counting bytes read plus written) and read bandwidth (a read-only kernel with 16-byte loads,
  compiled here with NVRTC; a measurement tool, not a catalog realization);
* peers (PyTorch eager, torch.compile, CuPy/CUB) solve the same instances in the same run, and
  every timed realization and peer output is checked against a float64 reference first.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from epldb.contracts import Contract, Peer, make_rng
from epldb.contracts.base import shape_sizes
from epldb.contracts.dtypes import to_float64
from epldb.evidence import Row, canonical_json
from epldb.launch import ResolvedStep
from epldb.launch.domain import in_domain
from epldb.device import device_info
from epldb.runner import LoadedRealization, RunError, load_realization, prepare
from epldb.verify import error_figures, new_seed

if TYPE_CHECKING:
    from epldb.catalog import Catalog

# --- measurement kernels -------------------------------------------------------------------------

_TOOLS_SOURCE = r"""
// Measurement tools of epldb.bench (not catalog realizations).

// Keeps the stream busy for `ns` nanoseconds so the host can queue the timed launches behind it.
extern "C" __global__ void epl_spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Read bandwidth: every thread streams 16-byte loads, four independent ones in flight per
// iteration; the sum is stored only if it equals a value random data never produces, which keeps
// the loads alive without writing anything.
extern "C" __global__ void __launch_bounds__(512)
epl_read_f4(const float4* __restrict__ x, unsigned long long n4, float* __restrict__ sink) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 a = __ldg(x + i), b = __ldg(x + i + stride);
    const float4 c = __ldg(x + i + 2 * stride), d = __ldg(x + i + 3 * stride);
    acc += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) +
           ((d.x + d.y) + (d.z + d.w));
  }
  for (; i < n4; i += stride) {
    const float4 a = __ldg(x + i);
    acc += (a.x + a.y) + (a.z + a.w);
  }
  if (acc == 1.2345678e-37f) sink[0] = acc;
}
"""

_TOOLS: dict[int, Any] = {}


def _tools() -> Any:
    import cupy

    dev = cupy.cuda.Device().id
    if dev not in _TOOLS:
        _TOOLS[dev] = cupy.RawModule(code=_TOOLS_SOURCE, options=("--std=c++17",))
    return _TOOLS[dev]


def spin(ns: int) -> None:
    """Queue a device-side sleep of ``ns`` nanoseconds on the current stream."""
    _tools().get_function("epl_spin")((1,), (1,), (np.uint64(max(0, int(ns))),))


# --- timing ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    median_ms: float
    p10_ms: float
    p90_ms: float
    reps: int
    samples: tuple[float, ...] = field(default=(), repr=False)


def time_calls(
    calls: Sequence[Callable[[], Any]],
    *,
    min_reps: int = 20,
    max_reps: int = 200,
    target_ms: float = 50.0,
    warmup: int = 3,
) -> Timing:
    """Time ``calls`` (one per rotated buffer set, used round-robin) with CUDA events.

    Each repetition is one call between two events. Repetitions are queued behind a device-side
    sleep long enough to cover the host's enqueue time, so they run back to back on the GPU.
    """
    import cupy

    stream = cupy.cuda.get_current_stream()
    k = len(calls)
    for i in range(max(warmup, 1)):
        calls[i % k]()
    stream.synchronize()

    # Estimate device time per call and host enqueue time per call.
    probe = max(3, min(k, 10))
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    t0 = time.perf_counter()
    start.record()
    for i in range(probe):
        calls[i % k]()
    end.record()
    host_s = (time.perf_counter() - t0) / probe
    end.synchronize()
    est_ms = max(cupy.cuda.get_elapsed_time(start, end) / probe, 1e-4)
    reps = int(min(max_reps, max(min_reps, math.ceil(target_ms / est_ms))))

    starts = [cupy.cuda.Event() for _ in range(reps)]
    ends = [cupy.cuda.Event() for _ in range(reps)]
    # Enough sleep to queue every repetition (plus the event records) before the first one runs.
    spin(int(min(0.5, reps * (host_s + 20e-6) * 1.5 + 1e-3) * 1e9))
    for i in range(reps):
        starts[i].record()
        calls[i % k]()
        ends[i].record()
    ends[-1].synchronize()
    samples = sorted(cupy.cuda.get_elapsed_time(s, e) for s, e in zip(starts, ends))
    arr = np.asarray(samples)
    return Timing(float(np.median(arr)), float(np.percentile(arr, 10)), float(np.percentile(arr, 90)), reps,
                  tuple(samples))


# --- ceilings ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ceiling:
    name: str  # "copy" | "read"
    gbps: float
    timing: Timing
    nbytes: int  # bytes counted per repetition
    detail: str


def _pattern(nbytes: int) -> Any:
    """A buffer of pseudo-random bits (never zeros), made on the device without an RNG pass."""
    import cupy

    words = cupy.arange(nbytes // 4, dtype=cupy.uint32)
    words *= cupy.uint32(2654435761)  # Knuth's multiplicative hash: every word differs
    words ^= cupy.uint32(0x5BD1E995)
    return words


def measure_ceilings(nbytes: int = 1 << 31) -> list[Ceiling]:
    """Copy and read bandwidth of the current device, on buffers far larger than L2."""
    import cupy

    out: list[Ceiling] = []
    half = nbytes // 2
    src, dst = _pattern(half), cupy.empty(half // 4, dtype=cupy.uint32)

    def copy() -> None:
        dst.data.copy_from_device_async(src.data, half)

    t = time_calls([copy], min_reps=20, max_reps=50)
    out.append(Ceiling("copy", 2 * half / (t.median_ms * 1e-3) / 1e9, t, 2 * half,
                       f"cudaMemcpyAsync device to device, {half >> 20} MiB, counting bytes read plus written"))
    del src, dst

    out.append(_read_ceiling([_pattern(nbytes)], nbytes, "read", f"{nbytes >> 20} MiB"))
    return out


def _read_ceiling(buffers: Sequence[Any], nbytes: int, name: str, what: str) -> Ceiling:
    """The read-only kernel over the first ``nbytes`` (a multiple of 16) of each buffer, used
    round-robin; the best of 2, 4 and 8 blocks of 512 threads per SM."""
    import cupy

    sink = cupy.zeros(1, dtype=cupy.float32)
    fn = _tools().get_function("epl_read_f4")
    n4 = np.uint64(nbytes // 16)
    best: Ceiling | None = None
    for per_sm in (2, 4, 8):
        grid = device_info().sm_count * per_sm
        t = time_calls([lambda x=x, grid=grid: fn((grid,), (512,), (x, n4, sink)) for x in buffers],
                       min_reps=20, max_reps=50)
        c = Ceiling(name, nbytes / (t.median_ms * 1e-3) / 1e9, t, nbytes,
                    f"read-only kernel, 16-byte loads, {per_sm} blocks of 512 per SM, {what}")
        if best is None or c.gbps > best.gbps:
            best = c
    assert best is not None
    return best


# Below this many bytes a shape gets no size-matched reference of its own (L2-resident and
# latency-bound sizes are judged by time, not by a fraction of a bandwidth).
AT_SIZE_MIN_BYTES = 64 << 20


def at_size_bytes(ceiling: str, moved: int) -> int:
    """The bytes the size-matched reference of ``ceiling`` counts for a shape moving ``moved``: the
    read rounded down to 16 bytes, the copy's two halves each rounded down to 16."""
    if ceiling == "copy":
        half = moved // 2
        return 2 * (half - half % 16)
    return moved - moved % 16


def measure_read_at_size(nbytes: int, sets: int) -> Ceiling:
    """What any kernel can read in one launch of exactly this many bytes (rounded down to 16),
    rotating ``sets`` buffers as the shape's inputs rotate: the fixed cost of a launch between two
    events (a few microseconds) and the ramp up and down of the memory system included, which the
    device ceiling, read at 2 GiB, amortizes away. Named 'read-at-size'. A reference, not a bound:
    it is one grid-stride kernel, and a kernel shaped for the size can beat it (torch.compile's row
    sum did, by 0.8%, at 128 MiB)."""
    nbytes = at_size_bytes("read", nbytes)
    buffers = [_pattern(nbytes) for _ in range(max(1, sets))]
    return _read_ceiling(buffers, nbytes, "read-at-size", f"{nbytes / 2**20:.0f} MiB, {len(buffers)} buffer(s) rotated")


def measure_copy_at_size(nbytes: int, sets: int) -> Ceiling:
    """The copy ceiling's measurement (cudaMemcpyAsync device to device) at a read-and-write
    shape's own bytes moved: half of ``nbytes`` (rounded down to 16) read and the same written,
    from ``sets`` source buffers rotated as the shape's inputs rotate. Named 'copy-at-size'. It
    shows what the launch and the memory system's ramp cost at this size, which the device ceiling,
    copied at 1 GiB, amortizes away (experiment 0021-long-row-tail: 0.89 of the ceiling for a
    64 MiB input, 0.94 for 128 MiB)."""
    import cupy

    half = at_size_bytes("copy", nbytes) // 2
    sources = [_pattern(half) for _ in range(max(1, sets))]
    dst = cupy.empty(half // 4, dtype=cupy.uint32)
    t = time_calls([lambda src=src: dst.data.copy_from_device_async(src.data, half) for src in sources],
                   min_reps=20, max_reps=50)
    return Ceiling("copy-at-size", 2 * half / (t.median_ms * 1e-3) / 1e9, t, 2 * half,
                   f"cudaMemcpyAsync device to device, {half / 2**20:.0f} MiB read and written, "
                   f"{len(sources)} source(s) rotated")


def measure_mma_bf16(size: int = 8192) -> Row:
    """The bf16 tensor-core rate ceiling: cuBLAS (torch.matmul, bf16 in, fp32 accumulate, bf16 out)
    at size³, the fastest GEMM known on the board, timed as every row is; GFLOP/s of 2·size³ flops.
    A reference measured in the run, not the datasheet's dense peak (which clocks under load miss)."""
    import torch

    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(size, size, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()

    # On torch's current stream, as the torch peers run (epldb/contracts/peers.py): under a
    # torch.cuda.ExternalStream of CuPy's current stream the events missed the work (H100 run
    # 20261207T010155Z-bench-b7d5: 0.0016 ms for 8192^3, where the cuBLAS peer took 1.46 ms).
    def call() -> None:
        torch.matmul(a, b.t(), out=c)

    t = time_calls([call], min_reps=10, max_reps=40)
    flops = 2 * size**3
    return Row("ceiling/mma-bf16", "ceiling", {}, "bfloat16", {"m": size, "n": size, "k": size}, "passed",
               time_ms_median=t.median_ms, time_ms_p10=t.p10_ms, time_ms_p90=t.p90_ms,
               gflops=flops / (t.median_ms * 1e-3) / 1e9, frac_ceiling=1.0,
               detail=f"cuBLAS via torch.matmul(a, b.t()), bf16 {size}^3, fp32 accumulate; {t.reps} reps")


#: Rate ceilings (GFLOP/s) a contract's ``rate_ceiling`` may name, by name: each measures one row.
RATE_CEILINGS: dict[str, Callable[[], Row]] = {"mma-bf16": measure_mma_bf16}

# The size-matched reference of each device ceiling a contract is judged against.
AT_SIZE = {"read": measure_read_at_size, "copy": measure_copy_at_size}


def ceiling_row(c: Ceiling) -> Row:
    return Row(f"ceiling/{c.name}", "ceiling", {}, "", {"bytes": c.nbytes}, "passed",
               time_ms_median=c.timing.median_ms, time_ms_p10=c.timing.p10_ms, time_ms_p90=c.timing.p90_ms,
               gbps=c.gbps, frac_ceiling=1.0, detail=f"{c.detail}; {c.timing.reps} reps")


# --- the benchmark -------------------------------------------------------------------------------------


@dataclass
class BenchItem:
    """One realization of the run with the points to time."""

    realization_id: str
    points: list[dict[str, Any]]


def grids_sized(steps: Sequence[ResolvedStep]) -> list[str]:
    """Detail notes for the steps whose grid read resident_blocks: the grid launched and what the
    occupancy calculator said the device holds. A persistent grid's rows per group follow from it,
    and it depends on the board (how its GPCs place clusters), so the row must say it."""
    return [f"step {s.index}: grid {s.grid[0]} of {s.resident_blocks} resident blocks"
            for s in steps if s.resident_blocks is not None]


_GRID_SIZED = re.compile(r"step \d+: grid (\d+) of (\d+) resident blocks")


def grids_read(detail: object) -> list[tuple[int, int]]:
    """(grid, resident blocks) of each note grids_sized wrote into a row's detail (none for a
    fixed grid or an empty cell)."""
    return [(int(g), int(r)) for g, r in _GRID_SIZED.findall(detail)] if isinstance(detail, str) else []


def rotation_sets(input_bytes: int, l2_bytes: int, cap: int = 128) -> int:
    """How many independent input sets make the working set at least 4x the L2."""
    if input_bytes <= 0:
        return 1
    return int(min(cap, max(1, math.ceil(4 * max(l2_bytes, 1) / input_bytes))))


def _rate_fields(row: Row, contract: Contract, shape: dict[str, int], point: dict[str, Any], t: Timing,
                 ceilings: dict[str, float]) -> None:
    row.time_ms_median, row.time_ms_p10, row.time_ms_p90 = t.median_ms, t.p10_ms, t.p90_ms
    seconds = t.median_ms * 1e-3
    row.gbps = contract.bytes_moved(shape, point) / seconds / 1e9
    row.gflops = contract.flops(shape, point) / seconds / 1e9
    if contract.rate_ceiling is not None:  # compute-bound: a fraction of the run's GFLOP/s ceiling
        rate = ceilings.get(contract.rate_ceiling)
        row.frac_ceiling = row.gflops / rate if rate else None
        return
    ceiling = ceilings.get(contract.ceiling)
    row.frac_ceiling = row.gbps / ceiling if ceiling else None


def _check(outputs: dict[str, Any], ref: dict[str, Any], contract: Contract, shape: dict[str, int],
           point: dict[str, Any], row: Row, xp: Any, peer: Peer | None = None) -> list[str]:
    notes: list[str] = []
    worst_max, worst_l2, nan = 0.0, 0.0, 0
    for spec in contract.outputs(shape, point):
        got = to_float64(outputs[spec.name], spec.dtype, xp)
        fig = error_figures(got, ref[spec.name], xp)
        worst_max, worst_l2, nan = max(worst_max, fig.max_rel), max(worst_l2, fig.rel_l2), nan + fig.nan
    row.err_max_rel, row.err_rel_l2 = worst_max, worst_l2
    tol = contract.tolerance_for(point, peer)
    if nan:
        notes.append(f"{nan} non-finite output(s)")
    if worst_max > tol.max_rel or worst_l2 > tol.rel_l2:
        notes.append("error above tolerance")
    row.status = "incorrect" if notes else "passed"
    return notes


@dataclass(frozen=True)
class BenchDevice:
    """What the passes take of the GPU, in one place so that a test can run them on the CPU: the
    array module, the L2 size (the input rotation's), the timer, the size-matched references of
    the ceilings, the stream's synchronize and the memory pool's release."""

    xp: Any
    l2_bytes: int
    time: Callable[[Sequence[Callable[[], Any]]], Timing]
    at_size: Mapping[str, Callable[[int, int], Ceiling]]
    synchronize: Callable[[], None]
    free_memory: Callable[[], None]


def cupy_device() -> BenchDevice:
    """The current CUDA device through CuPy: CUDA-event timing and the measurement kernels."""
    import cupy

    return BenchDevice(cupy, device_info().l2_bytes, time_calls, AT_SIZE,
                       lambda: cupy.cuda.get_current_stream().synchronize(),
                       lambda: cupy.get_default_memory_pool().free_all_blocks())


@dataclass
class BenchRun:
    """One bench() call, shared by its passes: the settings, the device, the rows in run order and
    the size-matched references already measured."""

    catalog: "Catalog"
    device: BenchDevice
    quick: bool = False
    ceilings: dict[str, float] = field(default_factory=dict)
    skip: Callable[[Row], bool] | None = None
    emit: Callable[[Row], None] | None = None
    progress: Callable[[str], None] | None = None
    seed: int = field(default_factory=new_seed)
    rows: list[Row] = field(default_factory=list)
    # (ceiling, bytes moved) whose size-matched reference this run already measured: keyed by the
    # ceiling too, since a reduction and a row map can move the same bytes (run 5b29: six shapes)
    at_size_done: set[tuple[str, int]] = field(default_factory=set)

    def skipped(self, row: Row) -> bool:
        """The caller has this row already (a resumed run): it is neither measured nor kept."""
        return self.skip is not None and self.skip(row)

    def finish(self, row: Row) -> None:
        self.rows.append(row)
        if self.emit is not None:
            self.emit(row)
        if self.progress is not None:
            self.progress(f"{row.subject} {canonical_json(row.params)} {canonical_json(row.shape)}")


Members = list[tuple[LoadedRealization, BenchItem]]


@dataclass
class ShapeCase:
    """One contract at one dtype and bench shape: the realization points that serve the shape,
    the rotated input sets they and the peers share, and the float64 references (one per peer
    problem, computed when first asked)."""

    contract: Contract
    dtype: str
    shape: dict[str, int]
    todo: list[tuple[LoadedRealization, dict[str, Any]]]
    input_bytes: int  # of one input set
    sets: list[dict[str, Any]]
    xp: Any
    refs: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def rep_point(self) -> dict[str, Any]:
        """The point whose inputs and bytes moved stand for the shape's (inputs depend on shape and
        dtype only)."""
        return self.todo[0][1]

    @property
    def rotation(self) -> str:
        k = len(self.sets)
        return f"{k} input set(s) rotated, {k * self.input_bytes / 2**20:.0f} MiB working set"

    def reference(self, point: dict[str, Any]) -> dict[str, Any]:
        key = canonical_json(self.contract.peer_params(point))
        if key not in self.refs:
            self.refs[key] = self.contract.reference(self.sets[0], dict(self.shape), point, self.xp)
        return self.refs[key]


def _load_pass(run: BenchRun, items: list[BenchItem]) -> list[tuple[Contract, Members]]:
    """Every item's realization compiled and loaded, grouped by contract (peers and inputs are
    shared within a contract); one that does not load gets its rows now, one per point."""
    groups: dict[str, tuple[Contract, Members]] = {}
    for item in items:
        r = run.catalog.realizations[item.realization_id]
        try:
            loaded = load_realization(run.catalog, item.realization_id)
        except RunError as e:
            for point in item.points:
                run.finish(Row(r.id, "realization", dict(point), str(point.get("dtype", "")), {}, e.status, detail=e.message))
            continue
        groups.setdefault(loaded.contract.name, (loaded.contract, []))[1].append((loaded, item))
    return list(groups.values())


#: ``shapes`` naming the contracts' own sweep shapes (``bench --sweep``).
SWEEP = ("sweep",)


def shapes_for(contract: Contract, quick: bool, shapes: Sequence[str] = ()) -> tuple[dict[str, int], ...]:
    """The shapes a contract is timed at: its bench shapes; its sweep shapes for ``SWEEP``; or those
    of ``shapes`` (text such as '8192x32001', the contract's shape variables in order) that have as
    many parts as it has variables; a contract none of them fits is timed at none."""
    if not shapes:
        return tuple(dict(s) for s in contract.bench_shapes(quick))
    if tuple(shapes) == SWEEP:
        return tuple(dict(s) for s in contract.sweep_shapes)
    names = contract.shape_vars
    sized = (shape_sizes(text) for text in shapes)
    return tuple(dict(zip(names, sizes)) for sizes in sized
                 if sizes is not None and len(sizes) == len(names) and min(sizes) > 0)


def _dtype_shapes(contract: Contract, members: Members, quick: bool,
                  shapes: Sequence[str] = ()) -> Iterator[tuple[str, dict[str, int]]]:
    """The (dtype, shape) pairs of a contract's members, dtype by dtype in sorted order."""
    for dtype in sorted({contract.dtype_of(p) for _, item in members for p in item.points}):
        for shape in shapes_for(contract, quick, shapes):
            yield dtype, shape


def _shape_case(run: BenchRun, contract: Contract, members: Members, dtype: str,
                shape: dict[str, int]) -> ShapeCase | None:
    """The points of ``members`` at ``dtype`` that serve ``shape``, with their rotated input sets
    made; None where no point does (then nothing is allocated)."""
    todo = [(loaded, p) for loaded, item in members for p in item.points
            if contract.dtype_of(p) == dtype and in_domain(loaded.realization, shape, p)]
    if not todo:
        return None
    xp, rep_point = run.device.xp, todo[0][1]
    input_bytes = sum(s.nbytes for s in contract.inputs(shape, rep_point))
    k = rotation_sets(input_bytes, run.device.l2_bytes)
    sets = [contract.make_inputs(dict(shape), dtype, rep_point, make_rng(xp, run.seed + i), xp) for i in range(k)]
    return ShapeCase(contract, dtype, dict(shape), todo, input_bytes, sets, xp)


def _ceiling_pass(run: BenchRun, case: ShapeCase) -> None:
    """The size-matched reference of the contract's ceiling (read-at-size, copy-at-size) at the
    shape's bytes moved, once a run per (ceiling, bytes), from as many buffers as the shape's input
    sets; a shape moving less than AT_SIZE_MIN_BYTES gets none."""
    ceiling = case.contract.ceiling
    moved = case.contract.bytes_moved(dict(case.shape), case.rep_point)
    measure = run.device.at_size.get(ceiling)
    if measure is None or moved < AT_SIZE_MIN_BYTES or (ceiling, moved) in run.at_size_done:
        return
    run.at_size_done.add((ceiling, moved))
    probe = Row(f"ceiling/{ceiling}-at-size", "ceiling", {}, "", {"bytes": at_size_bytes(ceiling, moved)}, "passed")
    if run.skipped(probe):
        return
    c = measure(moved, len(case.sets))
    row = ceiling_row(c)
    ref = run.ceilings.get(ceiling)
    row.frac_ceiling = c.gbps / ref if ref else None  # of the run's device ceiling
    row.detail += f"; fraction of the run's {ceiling} ceiling"
    run.finish(row)


def _realization_pass(run: BenchRun, case: ShapeCase) -> None:
    """Every point that serves the shape, in the items' order: its first launch checked against
    the reference, then timed over the rotated input sets."""
    for loaded, point in case.todo:
        build = loaded.build
        row = Row(loaded.realization.id, "realization", dict(point), case.dtype, dict(case.shape), "skipped",
                  target=build.target, nvrtc=build.nvrtc_version, source_hash=build.source_hash)
        if not run.skipped(row):
            run.finish(_time_realization(run, case, loaded.realization.id, point, row))


def _time_realization(run: BenchRun, case: ShapeCase, realization_id: str, point: dict[str, Any], row: Row) -> Row:
    try:
        launcher = prepare(run.catalog, realization_id, case.shape, point)
        outs = [launcher.allocate_outputs() for _ in case.sets]
        calls = [launcher.bind({**inputs, **out}) for inputs, out in zip(case.sets, outs)]
        calls[0]()
        notes, t = _checked_timing(run, case, point, row, outs[0], calls)
    except RunError as e:
        row.status, row.detail = e.status, e.message
        return row
    except Exception as e:  # noqa: BLE001 - CUDA errors come as several types
        row.status, row.detail = "runtime-error", f"{type(e).__name__}: {e}"
        return row
    _rate_fields(row, case.contract, dict(case.shape), point, t, run.ceilings)
    row.detail = "; ".join(notes + grids_sized(launcher.plan.steps) + [case.rotation, f"{t.reps} reps"])
    return row


def _peer_pass(run: BenchRun, case: ShapeCase) -> None:
    """Every peer of the contract on each problem the shape's points pose (one per distinct
    peer_params, in their canonical JSON's order), after the realizations, on the same inputs."""
    contract = case.contract
    problems = {canonical_json(contract.peer_params(p)): p for _, p in case.todo}
    for _, point in sorted(problems.items()):
        for peer in contract.peers():
            row = Row(f"{contract.name}/{peer.name}", "peer", contract.peer_params(point), case.dtype,
                      dict(case.shape), "skipped")
            if not run.skipped(row):
                run.finish(_time_peer(run, case, peer, point, row))


def _time_peer(run: BenchRun, case: ShapeCase, peer: Peer, point: dict[str, Any], row: Row) -> Row:
    if run.quick and peer.name == "torch-compile":
        row.detail = "not timed with --quick (compile time)"
        return row
    prepared = peer.prepare(case.contract, dict(case.shape), point)
    if isinstance(prepared, str):
        row.detail = prepared
        return row
    try:
        first = prepared(case.sets[0])
        notes, t = _checked_timing(run, case, point, row, first, [partial(prepared, s) for s in case.sets], peer)
    except Exception as e:  # noqa: BLE001 - a peer's failure is recorded, not fatal
        row.status, row.detail = "runtime-error", f"{type(e).__name__}: {e}"[:500]
        return row
    _rate_fields(row, case.contract, dict(case.shape), point, t, run.ceilings)
    row.detail = "; ".join(notes + [peer.title, case.rotation, f"{t.reps} reps"])
    return row


def _checked_timing(run: BenchRun, case: ShapeCase, point: dict[str, Any], row: Row, first: dict[str, Any],
                    calls: Sequence[Callable[[], Any]], peer: Peer | None = None) -> tuple[list[str], Timing]:
    """The outputs of the first call (already queued) checked against the reference, then
    ``calls`` timed: the notes of the check and the timing."""
    run.device.synchronize()
    notes = _check(first, case.reference(point), case.contract, dict(case.shape), point, row, run.device.xp, peer)
    return notes, run.device.time(calls)


def bench(
    catalog: "Catalog",
    items: list[BenchItem],
    *,
    quick: bool = False,
    ceilings: dict[str, float] | None = None,
    skip: Callable[[Row], bool] | None = None,
    emit: Callable[[Row], None] | None = None,
    progress: Callable[[str], None] | None = None,
    peers: bool = True,
    device: BenchDevice | None = None,
    shapes: Sequence[str] = (),
) -> list[Row]:
    """Time every item's points at the contract's bench shapes (or at ``shapes``, see shapes_for),
    with peers; rows in run order.

    ``ceilings`` maps ceiling names to GB/s (measured by the caller in the same run). The rotated
    input sets are generated once per (dtype, shape) and shared by every realization, point and
    peer of the contract, so a contract's inputs must depend on shape and dtype only (the outputs
    and the reference may depend on the whole point). Shape by shape, the size-matched ceiling,
    the realizations and the peers are measured one after the other, on the same inputs and in the
    same state of the device. ``device`` is the GPU (CuPy's current device unless a test fakes it).
    """
    run = BenchRun(catalog, device or cupy_device(), quick, ceilings or {}, skip, emit, progress)
    for contract, members in _load_pass(run, items):
        for dtype, shape in _dtype_shapes(contract, members, quick, shapes):
            case = _shape_case(run, contract, members, dtype, shape)
            if case is None:
                continue
            _ceiling_pass(run, case)
            _realization_pass(run, case)
            if peers:
                _peer_pass(run, case)
            del case  # the input sets and references go before the pool is released
            run.device.free_memory()
    return run.rows


def realization_rows(catalog: "Catalog", item: BenchItem, quick: bool, shapes: Sequence[str] = ()) -> int:
    """How many realization rows :func:`bench` gives ``item``: its points at the shapes they serve
    (the work a shard of a run is balanced by, see epldb.shard); one a point when it has no contract."""
    from epldb.runner import contract_of

    r = catalog.realizations[item.realization_id]
    try:
        contract = contract_of(catalog, r)
    except RunError:
        return len(item.points)
    timed = shapes_for(contract, quick, shapes)
    return sum(in_domain(r, shape, p) for p in item.points for shape in timed)


def count_rows(catalog: "Catalog", items: list[BenchItem], quick: bool, peers: bool = True,
               shapes: Sequence[str] = ()) -> int:
    """How many rows :func:`bench` will produce (for the progress bar)."""
    from epldb.runner import contract_of

    total = 0
    per_contract: dict[str, tuple[Contract, set[tuple[str, str]]]] = {}
    for item in items:
        r = catalog.realizations[item.realization_id]
        try:
            contract = contract_of(catalog, r)
        except RunError:
            total += len(item.points)
            continue
        timed = shapes_for(contract, quick, shapes)
        total += sum(in_domain(r, shape, p) for p in item.points for shape in timed)
        entry = per_contract.setdefault(contract.name, (contract, set()))
        for p in item.points:
            entry[1].add((contract.dtype_of(p), canonical_json(contract.peer_params(p))))
    if peers:
        for contract, keys in per_contract.values():
            total += len(keys) * len(shapes_for(contract, quick, shapes)) * len(contract.peers())
    return total
