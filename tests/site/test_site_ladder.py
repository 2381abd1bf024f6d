"""An operator's ladder on its page (epldb/site/pages/ladder.py): the rungs in the record's order,
then per device and dtype every rung's best rate at each measured shape with its step over the rung
above, and a chart per shape whose x axis is the rungs. Read from the repository's own site."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from html_checks import cell_text, md_section, table_rows  # noqa: E402

import epldb  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _section(repo_site, operator: str) -> str:
    md = (repo_site.root / "site_src" / repo_site.pages[f"operator:{operator}"]).read_text(encoding="utf-8")
    section = md_section(md, "Ladder")
    assert section is not None, f"the {operator} page has no Ladder section"
    return section


def test_every_laddered_operator_lists_its_rungs_in_order(repo_site) -> None:
    cat = epldb.load(REPO)
    laddered = [o for o in cat.operators.values() if o.ladder]
    assert {o.id for o in laddered} >= {"gemm", "transpose"}
    for o in laddered:
        rows = table_rows(_section(repo_site, o.id))
        assert [cell_text(r[1]) for r in rows] == list(o.ladder)


def test_a_measured_ladder_has_steps_and_a_chart_per_shape(repo_site) -> None:
    """The transpose ladder is measured (evidence/nvidia-h100-80gb-hbm3): each rung below the first
    shows its step over the one above, and each chart's data file has the rungs as its x values,
    with the copy ceiling and the strongest peer beside them."""
    section = _section(repo_site, "transpose")
    tables = re.findall(r"<table.*?</table>", section, re.S)
    assert len(tables) >= 2, "no measured table under the rungs"
    rows = table_rows(tables[1])
    assert cell_text(rows[0][0]) == "transpose/naive" and "×" not in "".join(rows[0][1:])
    assert any("×" in cell for cell in rows[1][1:])
    charts = sorted((repo_site.root / "site_src").rglob("transpose-ladder-*.csv"))
    assert charts, "no ladder chart was written"
    with charts[0].open(encoding="utf-8") as f:
        data = list(csv.DictReader(f))
    rungs = [d["rung"] for d in data if d["kind"] == "realization"]
    assert rungs[0] == "naive" and set(rungs) <= {"naive", "padded-tile", "swizzled-tile", "tma-tiles"}
    kinds = {d["kind"] for d in data}
    assert {"realization", "ceiling", "level"} <= kinds


def test_a_rate_ceiling_far_above_its_runs_cublas_peer_is_not_drawn() -> None:
    import pandas as pd

    from epldb.contracts import get_contract
    from epldb.site.pages.ladder import _ceilings

    big = '{"k":8192,"m":8192,"n":8192}'
    rows = pd.DataFrame({"kind": ["realization", "realization"], "shape": [big, big], "run": ["good", "bad"]})
    device_rows = pd.DataFrame({
        "kind": ["ceiling", "peer", "ceiling", "peer"],
        "subject": ["ceiling/mma-bf16", "gemm/torch-eager"] * 2,
        "run": ["good", "good", "bad", "bad"],
        "shape": [big] * 4,
        "gflops": [700e3, 690e3, 701e6, 693e3],  # "bad": events that missed the work
    })
    assert _ceilings(rows, device_rows, get_contract("gemm"), rate=True) == {big: 700e3}
