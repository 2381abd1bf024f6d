"""tools/record_leads.py rewrites one field of a record and nothing else: checked on every committed
realization record (the list comes from the catalog) and on a record that lacks the field."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import epldb
from epldb.yamlsafe import load_yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("record_leads", ROOT / "tools" / "record_leads.py")
assert _SPEC is not None and _SPEC.loader is not None
record_leads = importlib.util.module_from_spec(_SPEC)
sys.modules["record_leads"] = record_leads  # dataclasses look their module up by name
_SPEC.loader.exec_module(record_leads)

RECORDS = sorted((ROOT / "catalog" / "realizations").glob("*/*.yaml"))
LEAD = "At commit 0000000 (a change, with a colon: and a #hash): verify RUN; bench RUN."


def _fields(text: str, path: Path) -> dict:
    doc, problems = load_yaml(text, str(path))
    assert doc is not None and not problems
    return dict(doc.data)


def test_the_records_are_found() -> None:
    assert len(RECORDS) == len(epldb.load(ROOT).realizations)


@pytest.mark.parametrize("path", RECORDS, ids=[f"{p.parent.name}/{p.stem}" for p in RECORDS])
def test_a_lead_prepended_changes_only_when_it_wins(path: Path) -> None:
    before = _fields(path.read_text(encoding="utf-8"), path)
    old = before.get(record_leads.FIELD)
    value = LEAD if old is None else LEAD + record_leads.JOIN + old
    after = _fields(record_leads.replace_field(path.read_text(encoding="utf-8"), value), path)
    assert after.pop(record_leads.FIELD) == value
    before.pop(record_leads.FIELD, None)
    assert after == before


def test_the_field_goes_before_notes_when_the_record_has_none(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("id: a/b\nstatus: draft\nnotes: >-\n  kept\n", encoding="utf-8")
    text = record_leads.rewritten(path, LEAD)
    assert text.index("when_it_wins:") < text.index("notes:")
    assert _fields(text, path) == {"id": "a/b", "status": "draft", "when_it_wins": LEAD, "notes": "kept"}


def test_wrapped_lines_keep_to_the_width() -> None:
    lines = record_leads.folded(LEAD * 5).splitlines()
    assert lines[0] == "when_it_wins: >-"
    assert all(len(line) <= record_leads.WIDTH and line.startswith("  ") for line in lines[1:])


def test_a_resident_sized_grid_is_named_from_the_row_detail() -> None:
    detail = "step 0: grid 224 of 224 resident blocks; 4 input set(s) rotated, 258 MiB working set; 200 reps"
    assert record_leads.grid_note(detail) == "grid 224 of 224 resident"
    assert record_leads.grid_note("4 input set(s) rotated; 200 reps") == ""
    assert record_leads.grid_note(float("nan")) == ""  # an empty detail cell reads as NaN
