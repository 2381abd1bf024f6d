"""The columns the pages group and label rows by (epldb/site/data.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from epldb.site.data import knobs_label, variant_of


def test_string_parameters_are_the_problem_unless_the_contract_says_otherwise() -> None:
    reduce_point = {"block": 256, "dtype": "float32", "op": "sum"}
    assert variant_of(reduce_point) == "op=sum" and knobs_label(reduce_point) == "block=256"
    # A realization's choice of operator policy is a string but not the problem: the contract's
    # peer_params (here only the dtype) decide, so its rows share the peers' variant.
    softmax_point = {"group": 32, "items": 8, "policy": "SoftmaxRow", "dtype": "bfloat16"}
    problem = {"dtype": "bfloat16"}
    assert variant_of(softmax_point, problem) == ""
    assert knobs_label(softmax_point, problem) == "group=32 items=8 policy=SoftmaxRow"
    # Without the contract's word, every string is the problem (peers' and ceilings' rows).
    assert variant_of(softmax_point) == "policy=SoftmaxRow"
    assert knobs_label(softmax_point) == "group=32 items=8"


def test_the_size_matched_reference_is_the_named_ceilings_at_the_rows_bytes_in_their_run() -> None:
    import json

    import pandas as pd

    from epldb.site.views import at_size

    shape = json.dumps({"cols": 1024, "rows": 32768})

    def timed(run: str, gbps: float) -> dict:  # moves 100 MB: GB/s x median ms x 1e6
        return dict(device="d", run=run, shape=shape, kind="realization", gbps=gbps, time_ms_median=100.0 / gbps)

    def ref(run: str, name: str, nbytes: int, gbps: float) -> dict:
        return dict(device="d", run=run, shape=json.dumps({"bytes": nbytes}), kind="ceiling",
                    subject=f"ceiling/{name}-at-size", gbps=gbps, time_ms_median=1.0)

    rows = pd.DataFrame([timed("r1", 3000.0), timed("r2", 3100.0)])
    evidence = pd.DataFrame([ref("r1", "copy", 100_000_000 - 32, 3700.0), ref("r2", "read", 100_000_000, 3900.0),
                             ref("r2", "copy", 300_000_000, 4100.0)])
    assert at_size(rows, evidence, "d", shape, "copy") == 3700.0  # r2 has no copy at these bytes: r1's
    assert at_size(rows, evidence, "d", shape, "read") == 3900.0
    assert at_size(rows, evidence, "e", shape, "copy") is None


def test_a_rate_ceiling_that_timed_nothing_leaves_its_runs_rows_without_fractions() -> None:
    """H100 run 20261207T010155Z-bench-b7d5 timed cuBLAS at 8192^3 in 0.0016 ms: 701 PFLOP/s, a
    thousand times its own cuBLAS peer, so every GEMM fraction of that run was a thousandth and the
    bandwidth a chart drew for its ceiling a thousand times too high."""
    import pandas as pd

    from epldb.site.data import unchecked_rate_runs

    big = '{"k":8192,"m":8192,"n":8192}'
    rows = pd.DataFrame([
        {"run": "broken", "kind": "ceiling", "shape": big, "gflops": 701_219_000.0},
        {"run": "broken", "kind": "peer", "shape": big, "gflops": 700_000.0},
        {"run": "sound", "kind": "ceiling", "shape": big, "gflops": 784_147.0},
        {"run": "sound", "kind": "peer", "shape": big, "gflops": 773_000.0},
        {"run": "unchecked", "kind": "ceiling", "shape": big, "gflops": 790_000.0},  # no peer: taken as it is
        {"run": "rows", "kind": "ceiling", "shape": '{"bytes":1}', "gflops": float("nan")},  # a copy ceiling
    ])
    assert unchecked_rate_runs(rows) == {"broken"}


def test_every_build_of_the_repository_comes_from_its_committed_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The site compiles only what evidence/static/ lacks: after `epldb compile --record` nothing.
    # Facts of today's source may also hold points a space has since dropped (gemm/tma-wgmma's
    # {bn, stages} from before it had bm); they neither count nor block.
    import epldb.validate_deep
    from epldb.site.data import SiteData, _gather_builds
    from repository import repository_catalog

    def compile_all(root: Path, jobs: list[tuple[Any, str]]) -> list[Any]:  # must not be reached
        raise AssertionError(f"compiled {[(r.id, t) for r, t in jobs]}: run `epldb compile --record` on them")

    monkeypatch.setattr(epldb.validate_deep, "compile_all", compile_all)
    data = SiteData(catalog=repository_catalog())
    _gather_builds(data, None)
    catalog = data.catalog
    assert len(data.builds) == sum(len(r.targets) for r in catalog.realizations.values())
    for (rid, target), build in data.builds.items():
        realization = catalog.realizations[rid]
        assert len(build.entries) == len(realization.points()) * len(realization.kernel.entries), (rid, target)
