"""Repositories for the site tests: a copy of this repository, and a small synthetic one with hostile
record text and invented evidence (written only inside a test's tmp dir, never into evidence/)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import yaml

from epldb.evidence import COLUMNS, write_sealed

REPO = Path(__file__).resolve().parents[2]

#: Text that must come out as text: a script tag, table pipes and a javascript: link.
HOSTILE = "<script>alert(1)</script> | pipes | [link](javascript:x)"


def _link_cache(dst: Path) -> None:
    """Share this repository's content-addressed build cache, so a copy does not recompile."""
    cache = REPO / ".cache"
    cache.mkdir(exist_ok=True)
    os.symlink(cache, dst / ".cache", target_is_directory=True)


def copy_repository(dst: Path, *, evidence: bool = True) -> Path:
    """What `epldb site` reads, copied: catalog, kernels, evidence (unless not wanted: charts take most
    of a generation's time), hand-written pages, mkdocs.yml."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("catalog", "kernels", "evidence") if evidence else ("catalog", "kernels"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, dst / name)
    shutil.copytree(REPO / "site_src", dst / "site_src", ignore=shutil.ignore_patterns("generated"))
    shutil.copy2(REPO / "mkdocs.yml", dst / "mkdocs.yml")
    _link_cache(dst)
    return dst


def _dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def make_synthetic(dst: Path) -> Path:
    """A tiny catalog (2 features, 2 primitives, 3 realizations of which one of the operator, 1 operator)
    whose texts try to inject
    markup, the repository's kernels for the block-reduce realizations, and one device's evidence."""
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "catalog" / "schema", dst / "catalog" / "schema")
    shutil.copytree(REPO / "kernels" / "include", dst / "kernels" / "include")
    shutil.copytree(REPO / "site_src", dst / "site_src", ignore=shutil.ignore_patterns("generated"))
    shutil.copy2(REPO / "mkdocs.yml", dst / "mkdocs.yml")
    _link_cache(dst)
    cat = dst / "catalog"
    _dump(cat / "features" / "reduction-summarizable.yaml", {
        "id": "reduction-summarizable", "title": "Reduction-summarizable",
        "question": "Is the result a fold of the elements?",
        "definition": "A fold with an identity. Uses `code`, **bold** and *emphasis*.",
        "properties": ["associativity", "identity-element"]})
    _dump(cat / "features" / "mergeable-state.yaml", {
        "id": "mergeable-state", "title": f"Mergeable {HOSTILE}",
        "question": f"Can states merge? {HOSTILE}",
        "definition": f"Definition with {HOSTILE} and <img src=x onerror=alert(2)>.\n\n- item <b>bold?</b>\n- two",
        "properties": ["mergeable-sufficient-state"],
        "example": "Welford & Chan: n = n_a + n_b"})
    _dump(cat / "primitives" / "reduction" / "block-reduce.yaml", {
        "id": "block-reduce", "family": "reduction", "title": "Block reduction",
        "summary": f"Reduces a block. {HOSTILE}", "scope": "block",
        "features": ["reduction-summarizable", "mergeable-state"],
        "properties": ["associativity", "commutativity"],
        "costs": [{"factor": "synchronization", "note": f"Barriers. {HOSTILE}"}],
        "contract": "block-tile-reduce", "operators": ["row-sum"]})
    _dump(cat / "primitives" / "reduction" / "warp-reduce.yaml", {
        "id": "warp-reduce", "family": "reduction", "title": "Warp reduction",
        "summary": "Reduces a warp with shuffles.", "scope": "warp",
        "features": ["reduction-summarizable"], "properties": ["associativity"],
        "costs": [{"factor": "latency", "note": "Five dependent steps."}]})
    _dump(cat / "operators" / "row-sum.yaml", {
        "id": "row-sum", "title": f"Row sum {HOSTILE}", "summary": "Sums each row.",
        "math": "y_i = sum_j x_ij  <script>alert(3)</script>",
        "features": [{"feature": "reduction-summarizable", "where": "the row sum"},
                     {"feature": "mergeable-state", "where": f"partial sums {HOSTILE}"}],
        "decomposition": [{"name": "rows", "primitive": "block-reduce", "role": "one block per row"}],
        "peers": ["torch-eager", "cupy"], "contract": "block-tile-reduce"})
    for name in ("warp-shuffle", "shared-tree"):
        data = yaml.safe_load((REPO / "catalog" / "realizations" / "block-reduce" / f"{name}.yaml").read_text())
        if name == "warp-shuffle":
            data["title"] = f"Warp shuffle {HOSTILE}"
            data["strategy"][0]["name"] = f"load {HOSTILE}"
        _dump(cat / "realizations" / "block-reduce" / f"{name}.yaml", data)
        src = REPO / "kernels" / data["kernel"]["source"]
        (dst / "kernels" / data["kernel"]["source"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst / "kernels" / data["kernel"]["source"])
    # An operator realization of row-sum, composed from a block-reduce realization; its kernel is
    # the warp-shuffle one, copied under kernels/operators/ (the operator-realization convention).
    data = yaml.safe_load((REPO / "catalog" / "realizations" / "block-reduce" / "warp-shuffle.yaml").read_text())
    data.pop("primitive")
    data.update({"id": "row-sum/composed", "operator": "row-sum", "title": f"Composed row sum {HOSTILE}",
                 "composes": ["block-reduce/warp-shuffle", "warp-reduce"]})
    source = data["kernel"]["source"]
    data["kernel"]["source"] = "operators/row-sum/composed.cu"
    _dump(cat / "realizations" / "row-sum" / "composed.yaml", {"id": data.pop("id"), **data})
    (dst / "kernels" / "operators" / "row-sum").mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "kernels" / source, dst / "kernels" / "operators" / "row-sum" / "composed.cu")
    write_synthetic_experiment(dst)
    write_synthetic_evidence(dst)
    return dst



DEVICE = "nvidia-h200"
RUN = "20250101T010000Z-bench-synthetic"
VERIFY_RUN = "20250101T000000Z-verify-synthetic"
OLD_RUN = "20241201T000000Z-bench-synthetic-old"
SANITIZE_RUN = "20250101T020000Z-sanitize-synthetic"


def write_synthetic_evidence(root: Path) -> None:
    """Invented numbers in the runner's format (a verify run without timing, a bench run with peers
    and ceilings, an old run on a changed kernel), for rendering tests only."""
    folder = root / "evidence" / DEVICE
    folder.mkdir(parents=True, exist_ok=True)
    shapes = [1 << 20, 1 << 22, 1 << 24, 1 << 26]
    ceiling = 4300.0

    def row(run: str, subject: str, kind: str, params: dict, shape: dict, gbps: float | None,
            status: str = "passed", source_hash: str = "fresh", deterministic: object = "") -> dict:
        n = next(iter(shape.values()))
        timed = gbps is not None
        t = n * 4 / gbps / 1e6 if timed else None
        return {"run": run, "subject": subject, "kind": kind, "params": json.dumps(params, sort_keys=True),
                "dtype": params.get("dtype", ""), "shape": json.dumps(shape), "status": status,
                "err_max_rel": 3e-7 if kind != "ceiling" else "", "err_rel_l2": 1e-7 if kind != "ceiling" else "",
                "deterministic": deterministic, "time_ms_median": t if timed else "",
                "time_ms_p10": t * 0.98 if timed else "", "time_ms_p90": t * 1.03 if timed else "",
                "gbps": gbps if timed else "", "frac_ceiling": gbps / ceiling if timed and kind != "ceiling" else (1 if timed else ""),
                "target": "sm_90a" if kind == "realization" else "", "nvrtc": "13.0",
                "source_hash": source_hash if kind == "realization" else "", "detail": "SYNTHETIC TEST DATA"}

    rows = [row(RUN, "ceiling/copy", "ceiling", {}, {"bytes": 1 << 31}, 4100.0),
            row(RUN, "ceiling/read", "ceiling", {}, {"bytes": 1 << 31}, ceiling)]
    # The read kernel at the two largest shapes' own byte counts (n float32 elements read).
    rows += [row(RUN, "ceiling/read-at-size", "ceiling", {}, {"bytes": 4 * n}, 3500.0 + n / 2**20) for n in shapes[2:]]
    for i, n in enumerate(shapes):
        scale = (i + 1) / len(shapes)
        for op in ("sum", "max"):
            for block, items in ((256, 4), (512, 8)):
                p = {"block": block, "items": items, "dtype": "float32", "op": op}
                rows.append(row(RUN, "block-reduce/warp-shuffle", "realization", p, {"n": n},
                                1500 + 2600 * scale + items * 10))
                rows.append(row(RUN, "block-reduce/shared-tree", "realization", p, {"n": n},
                                1400 + 2400 * scale + items * 5))
                rows.append(row(RUN, "row-sum/composed", "realization", p, {"n": n},
                                1300 + 2500 * scale + items * 5))
                rows.append(row(VERIFY_RUN, "block-reduce/warp-shuffle", "realization", p, {"n": n - 1}, None,
                                deterministic="true"))
            peer = {"dtype": "float32", "op": op, "tile": 1024}
            rows.append(row(RUN, "block-tile-reduce/torch-eager", "peer", peer, {"n": n}, 1000 + 2900 * scale))
            rows.append(row(RUN, "block-tile-reduce/cupy", "peer", peer, {"n": n}, 1200 + 3000 * scale))
    # A parameter point timed at the largest shape only, fastest there: charts must still draw the
    # best point at every shape, not this point as a lone dot.
    rows.append(row(RUN, "block-reduce/warp-shuffle", "realization",
                    {"block": 1024, "items": 16, "dtype": "float32", "op": "sum"}, {"n": shapes[-1]}, 4190.0))
    # An older run on an earlier kernel source: stale rows are listed, never chosen as best.
    rows.append(row(OLD_RUN, "block-reduce/shared-tree", "realization",
                    {"block": 128, "items": 4, "dtype": "float32", "op": "sum"}, {"n": 1 << 20}, 9999.0,
                    source_hash="old"))
    # compute-sanitizer rows (epldb/sanitize.py): one tool clean, one with a report that carries markup,
    # one with no report and a check that failed under the tool.
    for tool, status, detail in (("memcheck", "passed", "clean: 0 errors; 8 verification check(s), 0 failed"),
                                 ("racecheck", "incorrect", "1 racecheck error(s): Error: Race <b>reported</b>"),
                                 ("synccheck", "incorrect", "0 synccheck errors, but the verification failed (exit 1); "
                                                            "8 verification check(s), 1 failed")):
        rows.append({**row(SANITIZE_RUN, "block-reduce/warp-shuffle", "sanitizer", {"tool": tool}, {"max_n": 4096},
                           None, status), "source_hash": "fresh", "detail": detail, "err_max_rel": "",
                     "err_rel_l2": ""})
    for run in (RUN, VERIFY_RUN, OLD_RUN, SANITIZE_RUN):
        write_sealed(folder / f"{run}.parquet",
                     [{c: "" if r.get(c, "") == "" else str(r[c]) for c in COLUMNS} for r in rows if r["run"] == run])
        env = {"ceilings": {"copy": 4100.0, "read": ceiling}, "clocks": {"clocks.sm": "1980 MHz"},
               "compute_capability": "9.0", "driver": "580.00", "cuda_runtime_version": 13020, "cupy": "14.2.0",
               "git_commit": "0000000 <b>x</b>", "gpu": "NVIDIA H200 (synthetic)", "nvrtc": "13.0",
               "run": run, "sm_count": 132, "memory_bytes": 150113804288, "torch": "2.11.0", "gpu_uuid": "GPU-aba6f9c0-61d7-d4a0-4f12-e8367d00f3f9",
               "cluster_places": {"2": 66, "4": 33, "8": 15, "16": 7 if run == RUN else 8},
               "utc": f"{run[:4]}-{run[4:6]}-{run[6:8]}T{run[9:11]}:00:00+00:00"}
        (folder / f"{run}.env.json").write_text(json.dumps(env, indent=2), encoding="utf-8")


def read_synthetic_evidence(root: Path):
    """A stand-in for epldb.evidence.load_evidence over the synthetic files: rows whose source_hash is
    'old' are stale."""
    import pandas as pd

    frames = [pd.read_parquet(p) for p in sorted((root / "evidence").glob("*/*.parquet"))]
    df = pd.concat(frames, ignore_index=True)
    df["stale"] = df["source_hash"] == "old"
    return df


EXPERIMENT = "0001-hostile-grain"
EXPERIMENT_RUN = "20241215T000000Z-bench-experiment"


def write_synthetic_experiment(root: Path) -> None:
    """An experiment whose texts try to inject markup, concerning a realization and the operator,
    with one run of kind experiment (sealed as Parquet, and its environment)."""
    _dump(root / "catalog" / "experiments" / f"{EXPERIMENT}.yaml", {
        "id": EXPERIMENT, "title": f"Hostile grain {HOSTILE}", "date": "2024-12-15",
        "question": f"Does the block size matter? {HOSTILE}", "expectation": "Level, **bold** and `code`.",
        "change": "Blocks of 512 <img src=x onerror=alert(4)>.",
        "result": f"Level within 1%, as expected. {HOSTILE} Bench {EXPERIMENT_RUN}.",
        "verdict": "rejected", "concerns": ["block-reduce/warp-shuffle", "row-sum"], "evidence": [EXPERIMENT_RUN]})
    folder = root / "evidence" / DEVICE / "experiments"
    folder.mkdir(parents=True, exist_ok=True)
    # One timed row of a modified warp-shuffle kernel (its own source hash, so never the record's evidence).
    row = {"run": EXPERIMENT_RUN, "subject": "block-reduce/warp-shuffle", "kind": "realization",
           "params": json.dumps({"block": 512, "dtype": "float32", "items": 4, "op": "sum"}, sort_keys=True),
           "dtype": "float32", "shape": json.dumps({"n": 1 << 20}), "status": "passed", "err_max_rel": "3e-07",
           "err_rel_l2": "1e-07", "time_ms_median": "0.0015", "time_ms_p10": "0.00147", "time_ms_p90": "0.00155",
           "gbps": "2796.2", "frac_ceiling": "0.65", "target": "sm_90a", "nvrtc": "13.0",
           "source_hash": "experiment-modified", "detail": "SYNTHETIC TEST DATA"}
    write_sealed(folder / f"{EXPERIMENT_RUN}.parquet", [{c: row.get(c, "") for c in COLUMNS}])
    (folder / f"{EXPERIMENT_RUN}.env.json").write_text(json.dumps(
        {"run": EXPERIMENT_RUN, "experiment": EXPERIMENT, "device_slug": DEVICE, "git_commit": "0000000 <b>x</b>"},
        indent=2, sort_keys=True) + "\n")
