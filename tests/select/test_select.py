"""epldb.select over the committed evidence: measured shapes give the measured fastest, other shapes a
model prediction that names its rows, fallbacks say so, bad input is one plain line; the decision
table agrees with select; leave-one-shape-out scores every cell against the rows it hid."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import epldb
from epldb.cli import main
from epldb.launch.domain import in_domain
from epldb.select import SelectError, Selector, evaluate
from epldb.select.model import RealizationModel
from epldb.select.observations import key
from epldb.select.rules import rules
from realization_fixtures import make_repo


@pytest.fixture(scope="module")
def selector() -> Selector:
    return Selector(epldb.load())


def _subjects(selector: Selector) -> list[str]:
    from epldb.select.evaluate import subjects_with_evidence

    return subjects_with_evidence(selector)


def test_every_subject_with_evidence_picks_the_measured_fastest_at_a_measured_shape(selector: Selector) -> None:
    subjects = _subjects(selector)
    assert {"softmax", "rmsnorm", "segmented-row-reduce", "device-reduce"} <= set(subjects)
    for sid in subjects:
        subject = selector.subject(sid)
        obs = selector.observations(subject)
        keys = list(subject.problem_keys())
        device, dtype, *values = obs.iloc[0][["device", "dtype", *keys]].tolist()
        problem = dict(zip(keys, values))
        mask = (obs["device"] == device) & (obs["dtype"] == dtype)
        for k, v in problem.items():
            mask &= obs[k] == v
        rows = obs[mask]
        # A shape every realization with rows here was measured at: elsewhere the ones not measured
        # there (their rows stale since a kernel change) compete by prediction, as they should.
        everyone = set(rows["realization"])
        full = [s for s, g in rows.groupby("shape", sort=False) if set(g["realization"]) == everyone]
        if not full:
            continue
        shape_key = full[0]
        here = rows[rows["shape"] == shape_key]
        fastest = here.loc[here["time_ms"].idxmin()]
        choice = selector.select(sid, json.loads(shape_key), dtype, device, **problem)
        assert choice.basis == "measured", sid
        assert choice.predicted_ms == pytest.approx(fastest["time_ms"]), sid
        assert (choice.realization, key(choice.point)) == (fastest["realization"], fastest["params"]), sid
        assert choice.reason and choice.evidence[0]["run"] == fastest["run"]


def test_an_unmeasured_shape_is_predicted_from_named_rows_at_a_serving_point(selector: Selector) -> None:
    choice = selector.select("softmax", "6000x24001", "bfloat16", "nvidia-h200")
    r = selector.lab.realizations[choice.realization]
    assert r.subject == "softmax" and r.status == "verified"
    assert in_domain(r, choice.shape, choice.point) and choice.point["dtype"] == "bfloat16"
    assert choice.basis in ("interpolated", "extrapolated") and choice.predicted_ms and choice.predicted_ms > 0
    nbytes = selector.subject("softmax").contract.bytes_moved(choice.shape, choice.point)
    assert choice.predicted_gbps == pytest.approx(nbytes / (choice.predicted_ms * 1e-3) / 1e9)
    runs = set(selector.observations(selector.subject("softmax"))["run"])
    assert choice.evidence and all(e["run"] in runs and e["realization"] == choice.realization for e in choice.evidence)
    times = [a["predicted_ms"] for a in choice.alternatives]
    assert times == sorted(times) and all(t >= choice.predicted_ms for t in times)
    json.dumps(choice.as_dict())  # plain data all the way down


def test_a_device_without_evidence_takes_the_measured_one_and_says_so(selector: Selector) -> None:
    choice = selector.select("rmsnorm", "4096x4096", "float32", "nvidia-b200")
    assert choice.device == "nvidia-h200"
    assert "no evidence of rmsnorm at float32 on nvidia-b200" in choice.note


def test_no_evidence_at_all_falls_back_to_the_stated_rule(tmp_path: Path) -> None:
    cat = epldb.load(make_repo(tmp_path, status="verified"), lint=False)
    choice = Selector(cat).select("tile-sum", "4097", "float32", "nvidia-h200", op="sum", tile=128)
    assert (choice.realization, choice.basis, choice.predicted_ms) == ("tile-sum/naive", "rule", None)
    assert "first verified realization in catalog order" in choice.note


@pytest.mark.parametrize(("args", "message"), [
    (("softmax", "8192", "bfloat16"), "softmax takes ROWSXCOLS"),
    (("softmax", "8192x0", "bfloat16"), "cols must be at least 1"),
    (("softmax", "8192x32001", "float16"), "no verified realization for dtype 'float16'"),
    (("no-such", "1x1", "float32"), "no operator or primitive 'no-such'"),
    (("segmented-row-reduce", "8x8", "float32"), "needs op= one of max, sum"),
])
def test_bad_requests_say_what_to_do(selector: Selector, args: tuple[str, str, str], message: str) -> None:
    with pytest.raises(SelectError, match=message):
        selector.select(*args)


def test_the_cli_prints_the_choice_and_exits_2_on_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["select", "segmented-row-reduce", "--shape", "1000x3000", "--dtype", "float32", "--op", "max"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("segmented-row-reduce/") and "why:" in out and "rests on:" in out
    assert main(["select", "softmax", "--shape", "4096x16384", "--dtype", "bfloat16", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["basis"] == "measured"
    assert main(["select", "softmax", "--shape", "4096", "--dtype", "bfloat16"]) == 2
    err = capsys.readouterr().err
    assert "softmax takes ROWSXCOLS" in err and "Traceback" not in err
    assert main(["select", "softmax"]) == 2


def test_the_rules_are_what_select_picks_inside_each_region(selector: Selector) -> None:
    regions = rules(selector.lab, "rmsnorm", selector=selector)
    for dtype in ("float32", "bfloat16"):
        mine = [r for r in regions if r.dtype == dtype and r.device == "nvidia-h200"]
        assert mine and all(a.high < b.low for a, b in zip(mine, mine[1:])), "ascending, disjoint"
        for r in mine:
            assert selector.lab.realizations[r.realization].subject == "rmsnorm" and r.reason
            assert r.points and all(p["dtype"] == dtype for p in r.points)
    covering = [r for r in regions if r.dtype == "bfloat16" and r.device == "nvidia-h200" and r.low <= 4096 <= r.high]
    assert len(covering) == 1


def test_a_matrix_products_rules_are_read_at_aligned_n_and_say_which(selector: Selector) -> None:
    # The GEMM's regions run along m·n at a template's n: never 4097, whose unaligned rows only the
    # plain rungs serve (the baseline appeared to win from m = 4870 to 6887), and n is in the table.
    regions = rules(selector.lab, "gemm", selector=selector)
    assert regions and all(r.beside == "n" and r.rows is not None for r in regions)
    assert all(n % 16 == 0 for r in regions for n in r.rows or ())
    assert all(r.realization != "gemm/smem-sync" for r in regions)


def test_leave_one_shape_out_scores_each_cell_with_its_hidden_rows(selector: Selector) -> None:
    result = evaluate(selector.lab, ["rmsnorm", "segmented-row-reduce"], selector)
    assert result.cells
    for c in result.cells:
        assert c.ratio >= 1 - 1e-12, "no pick beats the measured best of its own shape"
        obs = selector.observations(selector.subject(c.subject))
        hidden = obs[(obs["shape"] == c.shape) & (obs["dtype"] == c.dtype) & (obs["device"] == c.device)]
        for k, v in c.problem.items():
            hidden = hidden[hidden[k] == v]
        assert c.best_ms == pytest.approx(hidden["time_ms"].min())
        assert c.pick_ms in set(hidden[hidden["realization"] == c.pick]["time_ms"])
    share = sum(c.ratio <= 1.05 for c in result.cells) / len(result.cells)
    assert result.share_near == pytest.approx(share)
    assert result.holds == (share >= 0.9 and result.worst <= 1.15)


def test_a_hidden_shape_leaves_no_row_in_the_model(selector: Selector) -> None:
    """Leave-one-shape-out is honest: the model fitted without a shape holds none of its rows, so a
    pick there is never 'measured'."""
    subject = selector.subject("softmax")
    obs = selector.observations(subject)
    shape = obs["shape"].iloc[0]
    row = obs[obs["shape"] == shape].iloc[0]
    for row_aligned in (True, False):
        m = selector.model(subject, row["device"], row["dtype"], {}, row["realization"], shape, row_aligned)
        assert shape not in m.by_shape
    preds = selector.predictions(subject, row["shape_d"], row["dtype"], {}, row["device"], exclude_shape=shape)
    assert preds and all(p.basis != "measured" for p in preds)


#: What leave-one-shape-out scores on the committed evidence (2026-12-07, 764 cells): 77.0% of the
#: cells within 5% of the best, 87.7% within 15%. Issue 31's bar (90%, and all) is not met yet; this
#: floor fails when a change makes the model worse. Raise it when the model improves; when new
#: evidence moves the figure down, say so in the commit that lowers it. Lowered from 88% to 87%
#: within 15% by the H100 row-operator runs of 2026-12-07, which timed only the three odd shapes
#: (5003, 32001, 100003 columns): their 36 cells are each a pick made from two shapes octaves away
#: (33% within 5%, 47% within 15%); the other 728 cells score 79% and 90%.
#: Raised to 82% and 93% by experiment 0046-select-below-shortest (83.4% and 93.9% on 2026-12-07),
#: and to 83% and 94% by experiment 0052-select-same-output-size (83.5% and 94.2% on 2026-12-08).
FLOOR_NEAR, FLOOR_FAR = 0.83, 0.94


def test_the_evaluation_on_committed_evidence_does_not_regress(selector: Selector) -> None:
    result = evaluate(selector.lab, selector=selector)
    far = sum(c.ratio <= 1.15 for c in result.cells) / len(result.cells)
    assert result.share_near >= FLOOR_NEAR and far >= FLOOR_FAR, (
        f"{len(result.cells)} cells: {result.share_near:.1%} within 5%, {far:.1%} within 15% "
        f"(floor {FLOOR_NEAR:.0%}, {FLOOR_FAR:.0%})")
    assert all(c.basis != "measured" for c in result.cells)


def _obs(rows: list[tuple[str, float, float]]):  # type: ignore[no-untyped-def]
    """Synthetic observations of one realization: (params, x, time per byte), 1 MB a shape."""
    import pandas as pd

    return pd.DataFrame([{"realization": "r", "params": p, "point": json.loads(p), "shape": f"s{x}", "x": x,
                          "bytes": 1 << 20, "time_ms": tpb * (1 << 20), "tpb": tpb, "run": "run"}
                         for p, x, tpb in rows])


def test_the_envelope_interpolates_in_log_time_and_holds_beyond_the_ends() -> None:
    a, b = '{"g":8}', '{"g":32}'
    m = RealizationModel("r", _obs([(a, 8.0, 1e-6), (b, 8.0, 2e-6), (a, 12.0, 4e-6), (b, 12.0, 1e-6)]))
    assert m.envelope(10.0) == pytest.approx(1e-6)
    m = RealizationModel("r", _obs([(a, 8.0, 1e-6), (a, 12.0, 4e-6)]))
    assert m.envelope(10.0) == pytest.approx(2e-6)  # halfway in log: the geometric mean
    assert m.envelope(4.0) == pytest.approx(1e-6) and m.envelope(20.0) == pytest.approx(4e-6)


def test_an_unmeasured_point_is_rated_by_the_trend_of_the_best_points() -> None:
    # The best lane count doubles with each octave of row length: at x = 11 the trend says 64.
    rows = [('{"g":8}', 8.0, 1e-6), ('{"g":16}', 9.0, 1e-6), ('{"g":32}', 10.0, 1e-6),
            ('{"g":8}', 10.0, 3e-6), ('{"g":32}', 8.0, 3e-6)]
    m = RealizationModel("r", _obs(rows))
    points = [{"g": 32}, {"g": 64}, {"g": 128}]
    p = m.predict("unmeasured", 11.0, 1 << 20, points)
    assert p is not None and p.point == {"g": 64} and p.basis == "extrapolated"
    assert math.isclose(p.time_ms, m.envelope(11.0) * (1 << 20))  # distance 0 from the trend: regret 1


def test_a_rate_contract_is_modelled_in_time_per_flop() -> None:
    """A GEMM's time follows its flops, not its bytes: the model divides by 2·m·n·k, so a rung timed
    at m = 512 and m = 4096 (n = k = 4096) predicts m = 1024 between them in time per flop, and the
    row operators keep time per byte."""
    from epldb.contracts import get_contract
    from epldb.select.observations import work

    gemm, softmax = get_contract("gemm"), get_contract("row-softmax")
    assert gemm is not None and softmax is not None
    shape = {"m": 1024, "n": 4096, "k": 4096}
    assert work(gemm, shape, {}) == 2 * 1024 * 4096 * 4096
    row = {"rows": 8, "cols": 1000}
    assert work(softmax, row, {"dtype": "float32"}) == softmax.bytes_moved(row, {"dtype": "float32"})
    obs = []
    for m, ms in ((512, 0.2), (4096, 1.0)):
        s = {"m": m, "n": 4096, "k": 4096}
        obs.append({"realization": "gemm/x", "params": key({"bn": 128}), "point": {"bn": 128}, "shape": key(s),
                    "x": math.log2(m), "time_ms": ms, "tpb": ms / work(gemm, s, {}), "run": "r"})
    p = RealizationModel("gemm/x", obs).predict(key(shape), math.log2(1024), work(gemm, shape, {}), [{"bn": 128}])
    assert p is not None and p.basis == "interpolated"
    per_flop = [o["tpb"] for o in obs]
    assert min(per_flop) < p.time_ms / work(gemm, shape, {}) < max(per_flop)


def test_below_the_shortest_measured_row_a_prediction_grows_with_the_octaves_missing() -> None:
    # Measured at 2^12 and 2^14 columns: 2^10 is two octaves below, 2^16 is held as it is above.
    from epldb.select.model import BELOW_SHORTEST

    m = RealizationModel("r", _obs([('{"g":8}', 12.0, 1e-6), ('{"g":8}', 14.0, 1e-6)]))
    below = m.predict("below", 10.0, 1 << 20, [{"g": 8}])
    above = m.predict("above", 16.0, 1 << 20, [{"g": 8}])
    assert below is not None and above is not None and below.basis == above.basis == "extrapolated"
    assert below.time_ms == pytest.approx(1e-6 * (1 << 20) * (1 + 2**2 * BELOW_SHORTEST))
    assert above.time_ms == pytest.approx(1e-6 * (1 << 20))


def test_where_the_axis_sets_the_grid_a_point_measured_at_the_same_axis_value_keeps_its_regret() -> None:
    # Two shapes at x = 19 (a GEMM's 128 x 4096 at k = 4096 and 14336: the same tiles); one hidden,
    # the other says the small tile is 1.0 of the envelope there and the big one 1.4. The big tile
    # wins at every longer x, so the trend of the best points, a line over all of them, leans to it.
    small, big = '{"bm":64}', '{"bm":128}'
    rows = [(small, 19.0, 1e-6), (big, 19.0, 1.4e-6)]
    rows += [r for x in (21.0, 23.0, 25.0, 27.0, 29.0, 31.0) for r in ((small, x, 1.3e-6), (big, x, 1e-6))]
    obs = _obs(rows)
    points = [{"bm": 128}, {"bm": 64}]
    grid = RealizationModel("r", obs, axis_sets_grid=True).predict("hidden", 19.0, 1 << 20, points)
    assert grid is not None and grid.point == {"bm": 64}
    assert grid.time_ms == pytest.approx(1e-6 * (1 << 20))
    # Row lengths: the same length at another row count is another launch, so the trend decides.
    rows_model = RealizationModel("r", obs).predict("hidden", 19.0, 1 << 20, points)
    assert rows_model is not None and rows_model.point == {"bm": 128}


def test_a_problem_too_small_to_time_says_the_launch_bounds_it(selector: Selector, capsys) -> None:
    choice = selector.select("softmax", "5x3", "float32", "nvidia-h100-80gb-hbm3")
    assert choice.predicted_ms is not None and choice.predicted_ms < 1e-3
    assert "leaves out the launch" in choice.note
    big = selector.select("softmax", "8192x32001", "float32", "nvidia-h100-80gb-hbm3")
    assert "launch" not in big.note
    assert "0.000" not in big.summary() and " us predicted" in choice.summary()


def test_an_empty_device_is_a_usage_error(capsys) -> None:
    assert main(["select", "softmax", "--shape", "8x8", "--dtype", "float32", "--device", " "]) == 2
    assert "--device: give a device's name" in capsys.readouterr().err
