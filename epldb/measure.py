"""The GPU commands behind ``epldb verify`` and ``epldb bench``: run, write evidence, summarize.

Both write ``evidence/<device>/<run>.csv`` plus ``<run>.env.json`` as they go (every row is on
disk the moment it is measured), draw a progress bar on stderr, and end with a short table.
``verify_command`` returns 1 when any check is incorrect or failed to compile or run;
``bench_command`` returns 1 when any timed output was wrong or failed. Both return 2 when there is
no GPU or an id is unknown.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from epldb.evidence import EvidenceWriter, Row, find_run, new_run_id
from epldb.launch.domain import shapes_for_point
from epldb.records import point_text
from epldb.shard import Shard, shard_ids

if TYPE_CHECKING:
    from epldb.bench import BenchItem
    from epldb.catalog import Catalog

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
FAILED = ("incorrect", "compile-error", "runtime-error")


class ProgressBar:
    """``[#######.......]  123/640  0:42  label`` on stderr; plain lines when not a terminal."""

    def __init__(self, total: int, title: str, stream: IO[str] | None = None, width: int = 28) -> None:
        self.total = max(total, 1)
        self.title = title
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.t0 = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_pct = -1

    def step(self, label: str = "") -> None:
        self.done += 1
        filled = min(self.width, self.width * self.done // self.total)
        elapsed = int(time.monotonic() - self.t0)
        line = (f"{self.title} [{'#' * filled}{'.' * (self.width - filled)}] {self.done:>5}/{self.total}"
                f"  {elapsed // 60}:{elapsed % 60:02d}  {label}")
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(160))
            self.stream.flush()
        else:
            pct = 10 * self.done // self.total
            if pct != self._last_pct or self.done == self.total:
                self._last_pct = pct
                self.stream.write(line[:200] + "\n")
                self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _fmt(v: float | None, spec: str) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def select_ids(catalog: "Catalog", ids: Sequence[str], out: IO[str]) -> list[str] | None:
    """The realization ids to run: those named, or every realization whose subject (primitive or
    operator) has a contract."""
    from epldb.contracts import get_contract

    if ids:
        chosen, unknown = catalog.select_realizations(ids)
        if unknown:
            print(f"unknown realization(s): {', '.join(unknown)}", file=out)
            return None
        return chosen
    return [r.id for r in catalog.realizations.values() if get_contract(catalog.contract_name_of(r))]


def open_writer(catalog: "Catalog", kind: str, out_dir: Path | None, resume: str | None,
                 command: str, out: IO[str], shard: Shard | None = None) -> EvidenceWriter | None:
    from epldb.evidence import collect_environment
    from epldb.device import device_info

    base = Path(out_dir) if out_dir is not None else catalog.root / "evidence"
    if resume:
        folder = find_run(base, resume)
        if folder is None:
            print(f"--resume {resume}: no {resume}.csv under {base}/<device>/", file=out)
            return None
        writer = EvidenceWriter(folder, resume).open()
        recorded = writer.env.get("shard")
        if recorded != (None if shard is None else str(shard)):
            # resuming with another partition would add rows of realizations the run never held
            writer.close()
            print(f"--resume {resume}: the run is shard {recorded or '(none)'}, not "
                  f"{shard or '(none)'}; resume it with the same --shard", file=out)
            return None
        return writer
    # The shard in the run id too: shards started in the same second on one host stay apart.
    run_id = new_run_id(kind) + (f"-{shard.tag}" if shard else "")
    env = collect_environment(catalog.root, run_id, command)
    if shard is not None:
        env["shard"] = str(shard)
    return EvidenceWriter(base / device_info().slug, run_id, env).open()


def _empty_shard(shard: Shard | None, selected: Sequence[str], out: IO[str]) -> bool:
    if shard is None or selected:
        return False
    print(f"shard {shard}: no realization falls in this shard (fewer realizations than shards); nothing to do",
          file=out)
    return True


def no_gpu(out: IO[str]) -> bool:
    from epldb.device import gpu_available

    if gpu_available():
        return False
    print("no CUDA device visible to CuPy: verify and bench need a GPU (see the device notes)", file=out)
    return True


def prebuild_selected(catalog: "Catalog", selected: Sequence[str], err: IO[str]) -> None:
    from epldb.runner import prebuild

    if len(selected) > 1:
        print(f"compiling {len(selected)} realizations side by side...", file=err, flush=True)
        prebuild(catalog, selected)


def verify_command(
    catalog: "Catalog",
    ids: Sequence[str] = (),
    *,
    out_dir: Path | None = None,
    resume: str | None = None,
    where: dict[str, list[str]] | None = None,
    max_n: int | None = None,
    shard: Shard | None = None,
    cover: bool = False,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """``epldb verify [ID ...]``: verify every point at every verification shape; write evidence.

    ``where`` restricts parameter values (``{"dtype": ["float32"]}``); ``max_n`` drops verification
    shapes with more elements (for quick GPU tests); ``shard`` keeps the realizations of that shard
    (epldb.shard), balanced by their checks; ``cover`` keeps a sample of each space that holds
    every value of every parameter (Realization.points_covering). Returns 0, 1 (a check failed) or 2.
    """
    from epldb.verify import verify_realization

    out, err = stdout or sys.stdout, stderr or sys.stderr
    selected = select_ids(catalog, ids, err)
    if selected is None:
        return EXIT_USAGE
    plans = verify_plans(catalog, selected, where, max_n, cover)
    selected = shard_ids(selected, {rid: checks for rid, _, _, checks in plans}, shard)
    if _empty_shard(shard, selected, out):
        return EXIT_OK
    plans = [plan for plan in plans if plan[0] in selected]
    total = sum(checks for *_, checks in plans)
    if no_gpu(err):
        return EXIT_USAGE
    writer = open_writer(catalog, "verify", out_dir, resume, "verify " + _shard_arg(shard) + " ".join(ids), err,
                          shard)
    if writer is None:
        return EXIT_USAGE

    prebuild_selected(catalog, selected, err)

    bar = ProgressBar(total, "verify", err)
    rows: list[Row] = []

    def emit(row: Row) -> None:
        writer.append(row)
        rows.append(row)
        bar.step(f"{row.subject} {row.status}")

    def skip(row: Row) -> bool:
        if writer.has(row):
            bar.step(f"{row.subject} (resumed)")
            return True
        return False

    try:
        for rid, points, shapes, _ in plans:
            verify_realization(catalog, rid, shapes=shapes, points=points, skip=skip, emit=emit)
    finally:
        bar.close()
        writer.close()

    all_rows = [_row_from_dict(d) for d in writer.existing()]
    print(verify_table(all_rows), file=out)
    print(f"\nevidence: {writer.sealed_path}", file=out)
    return EXIT_FAILED if any(r.status in FAILED for r in all_rows) else EXIT_OK


VerifyPlan = tuple[str, list[dict[str, Any]], list[dict[str, int]] | None, int]


def verify_plans(catalog: "Catalog", selected: Sequence[str], where: dict[str, list[str]] | None = None,
                 max_n: int | None = None, cover: bool = False) -> list[VerifyPlan]:
    """Per realization: its points, its verification shapes (None without a contract) and how many
    checks they make (the rows verify writes; the weight a shard is balanced by)."""
    from epldb.runner import RunError, contract_of

    plans: list[VerifyPlan] = []
    for rid in selected:
        r = catalog.realizations[rid]
        points = r.points_covering(where) if cover else r.points_where(where)
        try:
            shapes = [s for s in contract_of(catalog, r).verify_shapes if max_n is None or math.prod(s.values()) <= max_n]
        except RunError:
            shapes = None
        checks = sum(len(shapes_for_point(r, p, shapes)) for p in points) if shapes else len(points)
        plans.append((rid, points, shapes, checks))
    return plans


def _shard_arg(shard: Shard | None) -> str:
    return f"--shard {shard} " if shard else ""


def verify_table(rows: list[Row]) -> str:
    """Per realization and dtype: checks, passed, failed, worst error, bitwise determinism."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for r in rows:
        if r.kind == "realization":
            groups.setdefault((r.subject, r.dtype), []).append(r)
    table = []
    for (subject, dtype), rs in sorted(groups.items()):
        failed = [r for r in rs if r.status in FAILED]
        errs = [r.err_max_rel for r in rs if r.err_max_rel is not None]
        det = [r.deterministic for r in rs if r.deterministic is not None]
        table.append([subject, dtype, str(len(rs)), str(sum(r.status == "passed" for r in rs)), str(len(failed)),
                      _fmt(max(errs), ".2e") if errs else "", "yes" if det and all(det) else ("no" if det else ""),
                      (failed[0].status + ": " + failed[0].detail[:60]) if failed else ""])
    return _table(table, ["realization", "dtype", "checks", "passed", "failed", "max err", "bitwise", "first failure"])


def _row_from_dict(d: dict[str, str]) -> Row:
    import json

    def num(k: str) -> float | None:
        v = d.get(k, "")
        try:
            return float(v) if v != "" else None
        except ValueError:
            return None

    det = d.get("deterministic", "")
    return Row(
        subject=d.get("subject", ""), kind=d.get("kind", ""), params=json.loads(d.get("params") or "{}"),
        dtype=d.get("dtype", ""), shape=json.loads(d.get("shape") or "{}"), status=d.get("status", ""),
        err_max_rel=num("err_max_rel"), err_rel_l2=num("err_rel_l2"),
        deterministic=None if det == "" else det == "true",
        time_ms_median=num("time_ms_median"), time_ms_p10=num("time_ms_p10"), time_ms_p90=num("time_ms_p90"),
        gbps=num("gbps"), gflops=num("gflops"), frac_ceiling=num("frac_ceiling"), target=d.get("target", ""),
        nvrtc=d.get("nvrtc", ""), source_hash=d.get("source_hash", ""), detail=d.get("detail", ""),
    )


def bench_command(
    catalog: "Catalog",
    ids: Sequence[str] = (),
    quick: bool = False,
    out_dir: Path | None = None,
    resume: str | None = None,
    *,
    where: dict[str, list[str]] | None = None,
    peers: bool = True,
    shapes: Sequence[str] = (),
    shard: Shard | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """``epldb bench [ID ...] [--quick] [--shape RxC ...]``: ceilings, then every point at the bench shapes, then the
    peers, all in one run; rows written as measured. ``shard`` keeps the realizations of that shard
    (epldb.shard), balanced by their timed points; the shard's run measures its own ceilings and
    the peers of its realizations' contracts at the shapes it times. Returns 0, 1 (a timed output
    was wrong or a realization failed) or 2."""
    from epldb.bench import bench, ceiling_row, count_rows, measure_ceilings

    out, err = stdout or sys.stdout, stderr or sys.stderr
    selected = select_ids(catalog, ids, err)
    if selected is None:
        return EXIT_USAGE
    items = bench_items(catalog, selected, quick, where, shapes, shard)
    selected = [item.realization_id for item in items]
    if _empty_shard(shard, selected, out):
        return EXIT_OK
    if no_gpu(err):
        return EXIT_USAGE
    writer = open_writer(catalog, "bench", out_dir, resume, "bench " + ("--quick " if quick else "")
                           + ("--sweep " if list(shapes) == ["sweep"] else "".join(f"--shape {t} " for t in shapes))
                           + _shard_arg(shard) + " ".join(ids), err, shard)
    if writer is None:
        return EXIT_USAGE
    prebuild_selected(catalog, selected, err)
    t0 = time.monotonic()
    try:
        existing = {d["subject"]: float(d["gbps"]) for d in writer.existing() if d.get("kind") == "ceiling" and d.get("gbps")}
        ceilings: dict[str, float] = {k.split("/", 1)[1]: v for k, v in existing.items()}
        if not {"copy", "read"} <= set(ceilings):
            print("measuring ceilings (copy and read bandwidth)...", file=err)
            for c in measure_ceilings():
                writer.append(ceiling_row(c))
                ceilings[c.name] = c.gbps
            writer.update_env(ceilings={k: round(v, 1) for k, v in ceilings.items()})
        _rate_ceilings(catalog, items, writer, ceilings, err)
        bar = ProgressBar(count_rows(catalog, items, quick, peers, shapes), "bench", err)

        def emit(row: Row) -> None:
            writer.append(row)

        def skip(row: Row) -> bool:
            if writer.has(row):
                bar.step(f"{row.subject} (resumed)")
                return True
            return False

        try:
            bench(catalog, items, quick=quick, ceilings=ceilings, skip=skip, emit=emit, progress=bar.step, peers=peers,
                  shapes=shapes)
        finally:
            bar.close()
        writer.update_env(seconds=round(time.monotonic() - t0, 1))
    finally:
        writer.close()

    all_rows = [_row_from_dict(d) for d in writer.existing()]
    print(bench_table(all_rows), file=out)
    print(f"\nevidence: {writer.sealed_path}  ({time.monotonic() - t0:.0f} s)", file=out)
    return EXIT_FAILED if any(r.status in FAILED for r in all_rows if r.kind == "realization") else EXIT_OK


def _rate_ceilings(catalog: "Catalog", items: Sequence["BenchItem"], writer: Any, ceilings: dict[str, float],
                   err: IO[str]) -> None:
    """The rate ceilings (GFLOP/s) the selected realizations' contracts name, measured once a run
    (a resumed run keeps the row it has)."""
    from epldb.bench import RATE_CEILINGS
    from epldb.runner import RunError, contract_of

    contracts = []
    for item in items:
        try:
            contracts.append(contract_of(catalog, catalog.realizations[item.realization_id]))
        except RunError:
            continue
    rows = {d["subject"]: d for d in writer.existing() if d.get("kind") == "ceiling" and d.get("gflops")}
    names = sorted({c.rate_ceiling for c in contracts if c.rate_ceiling is not None})
    for name in names:
        done = rows.get(f"ceiling/{name}")
        if done is not None:
            ceilings[name] = float(done["gflops"])
            continue
        print(f"measuring the {name} rate ceiling...", file=err)
        row = RATE_CEILINGS[name]()
        writer.append(row)
        ceilings[name] = float(row.gflops or 0.0)


def bench_items(catalog: "Catalog", selected: Sequence[str], quick: bool = False,
                where: dict[str, list[str]] | None = None, shapes: Sequence[str] = (),
                shard: Shard | None = None) -> list["BenchItem"]:
    """The items bench times: each selected realization with its points, those of ``shard`` only
    when given (balanced by realization_rows)."""
    from epldb.bench import BenchItem, realization_rows

    items = [BenchItem(rid, catalog.realizations[rid].points_where(where)) for rid in selected]
    if shard is None:
        return items
    weights = {item.realization_id: realization_rows(catalog, item, quick, shapes) for item in items}
    mine = set(shard_ids(list(selected), weights, shard))
    return [item for item in items if item.realization_id in mine]


#: Shape variables that lead a shape's label, in this order; any others follow, sorted. Evidence
#: files store shapes as canonical JSON (keys sorted: cols before rows), so the order is fixed here.
_SHAPE_LEAD = ("rows", "cols")


def shape_label(shape: dict[str, Any]) -> str:
    """Every shape variable, ``name=value`` joined by commas: ``n=1048576``, ``rows=262144,cols=256``.
    Two shapes with the same element count (262144x256 and 16384x4096) get different labels."""
    keys = [k for k in _SHAPE_LEAD if k in shape] + sorted(k for k in shape if k not in _SHAPE_LEAD)
    return ",".join(f"{k}={shape[k]}" for k in keys)


def bench_table(rows: list[Row]) -> str:
    """Ceilings, then per subject and dtype (and op): the best row at every shape of the largest and
    of the smallest element count. A 1-D contract shows two rows (largest n, smallest n); a 2-D one
    shows each rows x cols shape at those counts on its own row, even where counts are equal."""
    lines = []
    for r in rows:
        if r.kind == "ceiling":
            lines.append([r.subject, "", "", "", _fmt(r.gbps, ".0f"), "1.00", _fmt(r.time_ms_median, ".4f"), ""])
    groups: dict[tuple[str, str, str, str], list[Row]] = {}
    for r in rows:
        if r.kind in ("realization", "peer") and r.gbps is not None and r.status == "passed":
            groups.setdefault((r.kind, r.subject, r.dtype, str(r.params.get("op", ""))), []).append(r)
    for (kind, subject, dtype, op), rs in sorted(groups.items(), key=lambda kv: (kv[0][2], kv[0][3], kv[0][0] != "realization", kv[0][1])):
        sizes = sorted({math.prod(r.shape.values()) for r in rs})
        for size in (sizes[-1], sizes[0]) if len(sizes) > 1 else sizes:
            by_shape: dict[str, list[Row]] = {}  # first-seen order: the order the bench ran them
            for r in rs:
                if math.prod(r.shape.values()) == size:
                    by_shape.setdefault(shape_label(r.shape), []).append(r)
            for label, at in by_shape.items():
                best = max(at, key=lambda r: r.gbps or 0.0)
                params = point_text({k: v for k, v in sorted(best.params.items()) if k not in ("dtype", "op")}, sep=",")
                lines.append([subject, dtype, op, label, _fmt(best.gbps, ".0f"), _fmt(best.frac_ceiling, ".2f"),
                              _fmt(best.time_ms_median, ".4f"), params])
    return _table(lines, ["subject", "dtype", "op", "shape", "GB/s", "frac", "ms (median)", "best params"])
