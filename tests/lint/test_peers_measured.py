"""Lint rule peers-measured: an operator lists only peers its contract implements; one without a
contract is left alone (nothing is timed yet), and the repository's own operators pass."""

from __future__ import annotations

from pathlib import Path

import epldb
from examples import BASE, materialize
from epldb.lint import peers_measured

RECORD = "catalog/operators/total.yaml"


def _problems(tmp_path: Path, tail: str) -> list[str]:
    case = tmp_path / "case"
    (case / RECORD).parent.mkdir(parents=True)
    base = (BASE / RECORD).read_text().replace("peers: [torch-eager]\n", "")
    (case / RECORD).write_text(base + tail, encoding="utf-8")
    root = materialize(case, tmp_path / "root")
    return [p.format() for p in epldb.load(root).problems if p.rule == peers_measured.RULE]


def test_peers_the_contract_implements_pass(tmp_path: Path) -> None:
    assert _problems(tmp_path, "peers: [torch-eager, cupy]\ncontract: device-reduce\n") == []


def test_a_peer_the_contract_lacks_is_refused_at_its_item(tmp_path: Path) -> None:
    found = _problems(tmp_path, "peers: [torch-eager, Triton fused softmax]\ncontract: device-reduce\n")
    assert found == [f"{RECORD}:12:22: error: $.peers[1]: contract 'device-reduce' has no peer 'Triton fused "
                     "softmax'; it implements torch-eager, torch-compile, cupy [peers-measured]"]


def test_without_a_contract_the_rule_waits(tmp_path: Path) -> None:
    assert _problems(tmp_path, "peers: [torch.sum]\n") == []


def test_the_repository_operators_list_only_measured_peers() -> None:
    root = Path(__file__).resolve().parents[2]
    assert [p.format() for p in epldb.load(root).problems if p.rule == peers_measured.RULE] == []
