"""``bench --shard`` and ``verify --shard`` on the CPU: the GPU, the environment and the timing faked,
so that what a shard measures, and what its run records, come out checked without a GPU."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import epldb.bench as bench_module
import epldb.device as device_module
import epldb.evidence as evidence_module
import epldb.runner as runner_module
import epldb.verify as verify_module
from repository import repository_catalog
from epldb.bench import BenchItem, Ceiling, Timing
from epldb.evidence import Row, read_sealed
from epldb.measure import bench_command, bench_items, verify_command, verify_plans
from epldb.shard import Shard

CATALOG = repository_catalog()
IDS = ["block-reduce", "device-reduce"]  # two contracts, several realizations each


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """No GPU needed: an H200 as device_info says it, an environment without CuPy, nothing compiled."""
    seen: dict[str, Any] = {"prebuilt": [], "benched": [], "verified": [], "ceilings": 0}
    monkeypatch.setattr(device_module, "gpu_available", lambda: True)
    monkeypatch.setattr(device_module, "device_info", lambda: SimpleNamespace(slug="nvidia-h200"))
    monkeypatch.setattr(evidence_module, "collect_environment",
                        lambda root, run, command: {"run": run, "command": command, "gpu": "NVIDIA H200"})
    monkeypatch.setattr(runner_module, "prebuild", lambda cat, ids: seen["prebuilt"].extend(ids))

    def ceilings(nbytes: int = 0) -> list[Ceiling]:
        seen["ceilings"] += 1
        return [Ceiling(name, 4000.0, Timing(1.0, 0.9, 1.1, 20), 1 << 30, "fake") for name in ("copy", "read")]

    def bench(catalog: Any, items: list[BenchItem], **kw: Any) -> list[Row]:
        seen["benched"].append([i.realization_id for i in items])
        return []

    def verify(catalog: Any, rid: str, **kw: Any) -> list[Row]:
        seen["verified"].append(rid)
        row = Row(rid, "realization", {}, "float32", {"n": 1}, "passed")
        kw["emit"](row)
        return [row]

    monkeypatch.setattr(bench_module, "measure_ceilings", ceilings)
    monkeypatch.setattr(bench_module, "bench", bench)
    monkeypatch.setattr(verify_module, "verify_realization", verify)
    return seen


def _env(tmp_path: Path) -> tuple[str, dict[str, Any]]:
    (env_path,) = tmp_path.glob("nvidia-h200/*.env.json")
    return env_path.name.removesuffix(".env.json"), json.loads(env_path.read_text())


def test_a_bench_shard_times_its_realizations_with_ceilings_of_its_own(fake_gpu: dict[str, Any],
                                                                       tmp_path: Path) -> None:
    out = io.StringIO()
    assert bench_command(CATALOG, IDS, True, tmp_path, shard=Shard(2, 3), stdout=out, stderr=io.StringIO()) == 0
    mine = [i.realization_id for i in bench_items(CATALOG, CATALOG.select_realizations(IDS)[0], True,
                                                  shard=Shard(2, 3))]
    assert fake_gpu["benched"] == [mine] and fake_gpu["prebuilt"] == mine and fake_gpu["ceilings"] == 1
    run, env = _env(tmp_path)
    assert run.endswith("-s2of3") and run.split("-")[1] == "bench"
    assert env["shard"] == "2/3" and "--shard 2/3" in env["command"] and env["ceilings"] == {"copy": 4000.0,
                                                                                               "read": 4000.0}
    rows = read_sealed(tmp_path / "nvidia-h200" / f"{run}.parquet")
    assert sorted(r["subject"] for r in rows) == ["ceiling/copy", "ceiling/read"]  # measured in the shard's run


def test_bench_shards_split_the_realizations_and_each_times_its_contracts_peers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The real bench() with every contract's peers faked out: a shard times the peers of the
    # contracts its realizations serve, at the shapes it times, and none of the others'.
    selected = CATALOG.select_realizations(IDS)[0]
    shards = [bench_items(CATALOG, selected, True, shard=Shard(i, 2)) for i in (1, 2)]
    assert sorted(i.realization_id for s in shards for i in s) == sorted(selected)
    contracts = {rid: CATALOG.contract_name_of(CATALOG.realizations[rid]) for rid in selected}
    for items in shards:
        served = {contracts[i.realization_id] for i in items}
        timed = _peer_rows(monkeypatch, items)
        assert {subject.split("/")[0] for subject, _ in timed} == served
        assert {shape for _, shape in timed} <= _shapes(items)


def _shapes(items: list[BenchItem]) -> set[str]:
    from epldb.bench import shapes_for
    from epldb.runner import contract_of

    return {json.dumps(s, sort_keys=True) for i in items
            for s in shapes_for(contract_of(CATALOG, CATALOG.realizations[i.realization_id]), True)}


def _peer_rows(monkeypatch: pytest.MonkeyPatch, items: list[BenchItem]) -> set[tuple[str, str]]:
    """The (peer, shape) rows bench() would time for ``items``, every measurement skipped."""
    from epldb.runner import contract_of

    monkeypatch.setattr(bench_module, "load_realization", lambda cat, rid: SimpleNamespace(
        realization=CATALOG.realizations[rid], contract=contract_of(CATALOG, CATALOG.realizations[rid])))
    monkeypatch.setattr(bench_module, "_shape_case", lambda run, contract, members, dtype, shape: SimpleNamespace(
        contract=contract, dtype=dtype, shape=shape,
        todo=[(m, p) for m, item in members for p in item.points if contract.dtype_of(p) == dtype]))
    monkeypatch.setattr(bench_module, "_ceiling_pass", lambda run, case: None)
    monkeypatch.setattr(bench_module, "_realization_pass", lambda run, case: None)
    seen: set[tuple[str, str]] = set()

    def skip(row: Row) -> bool:
        seen.add((row.subject, json.dumps(row.shape, sort_keys=True)))
        return True

    device = bench_module.BenchDevice(None, 0, lambda calls: Timing(1, 1, 1, 1), {}, lambda: None, lambda: None)
    bench_module.bench(CATALOG, items, quick=True, skip=skip, device=device)
    return seen


def test_a_verify_shard_checks_its_realizations_only(fake_gpu: dict[str, Any], tmp_path: Path) -> None:
    selected = CATALOG.select_realizations(IDS)[0]
    done: list[str] = []
    for i in (1, 2):
        fake_gpu["verified"] = []
        assert verify_command(CATALOG, IDS, out_dir=tmp_path / str(i), shard=Shard(i, 2), stdout=io.StringIO(),
                              stderr=io.StringIO()) == 0
        done += fake_gpu["verified"]
        run, env = _env(tmp_path / str(i))
        assert env["shard"] == f"{i}/2" and run.endswith(f"-s{i}of2") and run.split("-")[1] == "verify"
    assert sorted(done) == sorted(selected) and len(done) == len(set(done))
    checks = {rid: c for rid, *_, c in verify_plans(CATALOG, selected)}
    assert all(checks[rid] > 0 for rid in selected)


def test_a_shard_without_realizations_writes_nothing(fake_gpu: dict[str, Any], tmp_path: Path) -> None:
    out = io.StringIO()
    assert bench_command(CATALOG, ["block-reduce/warp-shuffle"], True, tmp_path, shard=Shard(2, 2), stdout=out,
                         stderr=io.StringIO()) == 0
    assert "no realization falls in this shard" in out.getvalue() and not list(tmp_path.rglob("*"))


def test_resuming_a_shard_needs_the_same_shard(fake_gpu: dict[str, Any], tmp_path: Path) -> None:
    assert bench_command(CATALOG, IDS, True, tmp_path, shard=Shard(1, 2), stdout=io.StringIO(),
                         stderr=io.StringIO()) == 0
    run, _ = _env(tmp_path)
    err = io.StringIO()
    assert bench_command(CATALOG, IDS, True, tmp_path, run, shard=Shard(2, 2), stdout=io.StringIO(), stderr=err) == 2
    assert "the run is shard 1/2, not 2/2" in err.getvalue()
    assert bench_command(CATALOG, IDS, True, tmp_path, run, shard=Shard(1, 2), stdout=io.StringIO(),
                         stderr=io.StringIO()) == 0
