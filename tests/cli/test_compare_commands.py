"""``epldb compare`` over the repository's committed evidence: usage errors, text and JSON."""

from __future__ import annotations

import json

import pytest

from epldb.cli import main


def test_unknown_id_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "no-such-thing"]) == 2
    assert "unknown id(s): no-such-thing" in capsys.readouterr().err


def test_json_rows_compare_within_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "logsumexp", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows, "the committed evidence holds logsumexp runs with peers"
    for r in rows:
        assert r["contract"] == "row-logsumexp" and r["best"]["subject"].startswith("logsumexp/")
        assert r["peer"]["subject"].startswith("row-logsumexp/") and r["verdict"] in ("ahead", "behind", "level")
        assert r["margin"] == pytest.approx(r["best"]["gbps"] / r["peer"]["gbps"] - 1)
        assert r["of_copy"] == pytest.approx(r["best"]["gbps"] / r["copy_gbps"])  # every bench run measures copy


def test_text_ends_with_the_tally(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "rmsnorm", "--device", "nvidia-h200"]) == 0
    out = capsys.readouterr().out
    assert "Against the strongest peer at each shape" in out and "row-rmsnorm" in out
    assert "of copy" in out and ">= 90% copy" in out
    assert main(["compare", "rmsnorm", "--device", "no-such-device"]) == 0
    assert "no run in the evidence" in capsys.readouterr().out
