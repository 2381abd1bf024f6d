"""Lint rule prose-length beyond its example folders: a residue split over two lines of the folded
scalar is located at its first word; a quoted scalar, whose words the file does not spell one for
one, at the field; the cap counts words as str.split() does, whatever the wrapping."""

from __future__ import annotations

from pathlib import Path

import epldb
from examples import BASE, materialize
from epldb.lint import prose_length

RECORD = "catalog/realizations/tile-sum/naive.yaml"


def _problems(tmp_path: Path, field: str) -> list[str]:
    case = tmp_path / "case"
    (case / RECORD).parent.mkdir(parents=True)
    (case / RECORD).write_text((BASE / RECORD).read_text() + field, encoding="utf-8")
    root = materialize(case, tmp_path / "root")
    return [p.format() for p in epldb.load(root).problems if p.rule == prose_length.RULE]


def test_a_residue_over_a_line_break_is_located_at_its_first_word(tmp_path: Path) -> None:
    found = _problems(tmp_path, "when_it_wins: >-\n  Wins at tiny tiles. As the earlier\n  runs showed, and\n"
                                "  at\n  commit 0123abc too.\n")
    assert [f.split(": error:")[0] for f in found] == [f"{RECORD}:20:30", f"{RECORD}:22:3"]
    assert "keeps a run-by-run history ('earlier runs')" in found[0]
    assert "cites a commit ('at commit 0123abc')" in found[1]


def test_a_quoted_scalar_is_located_at_the_field(tmp_path: Path) -> None:
    found = _problems(tmp_path, 'when_it_wins: "Wins at tiny tiles (run\\t20261130T224720Z-bench-88c3)."\n')
    assert found == [f"{RECORD}:19:15: error: $.when_it_wins: when_it_wins names run 20261130T224720Z-bench-88c3: "
                     f"{prose_length._BELONGS} [prose-length]"]


def test_the_cap_counts_words_not_lines(tmp_path: Path) -> None:
    words = " ".join(["word"] * prose_length.MAX_WORDS)
    assert _problems(tmp_path / "at", f"when_it_wins: {words}\n") == []
    over = _problems(tmp_path / "over", f"when_it_wins: |-\n  {words}\n\n  one more\n")
    assert len(over) == 1 and f"has {prose_length.MAX_WORDS + 2} words, over the cap of {prose_length.MAX_WORDS}" in over[0]


def test_a_record_without_the_field_is_fine(tmp_path: Path) -> None:
    assert _problems(tmp_path, "") == []
