"""tools/record_leads.py prints what a realization page's "Latest runs" says (epldb.leads, from the
evidence) and writes nothing: no record, no file under catalog/; there is no --write."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import pytest

import epldb
from epldb.leads import Leads, pick_runs, short_commit
from epldb.site.data import discover_runs

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("record_leads", ROOT / "tools" / "record_leads.py")
assert _SPEC is not None and _SPEC.loader is not None
record_leads = importlib.util.module_from_spec(_SPEC)
sys.modules["record_leads"] = record_leads
_SPEC.loader.exec_module(record_leads)


def _catalog_digest() -> dict[str, str]:
    base = ROOT / "catalog"
    return {p.relative_to(base).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(base.rglob("*")) if p.is_file()}


def test_it_prints_the_pages_lead_and_touches_no_record(capsys: pytest.CaptureFixture[str]) -> None:
    catalog = epldb.load(ROOT, lint=False)
    df = catalog.evidence()
    rid = next(r.id for r in catalog.realizations.values() if pick_runs(df, r.id) is not None)
    before = _catalog_digest()
    assert record_leads.main([rid]) == 0
    assert _catalog_digest() == before, "record_leads.py changed a file under catalog/"
    commits = {run: short_commit(i.env.get("git_commit")) for run, i in discover_runs(ROOT).items()}
    lead = Leads(catalog, df, commits).latest(catalog.realizations[rid])
    assert lead is not None
    assert capsys.readouterr().out == f"# {rid}\n{lead.text()}\n\n"


def test_there_is_no_write_path(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        record_leads.main(["--write", "softmax"])
    assert info.value.code == 2 and "--write" in capsys.readouterr().err
    source = (ROOT / "tools" / "record_leads.py").read_text(encoding="utf-8")
    assert "open(" not in source and "write_text" not in source and "os.replace" not in source


def test_an_unknown_id_is_one_plain_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert record_leads.main(["no-such/realization"]) == 2
    assert capsys.readouterr().err == "record_leads: unknown id(s): no-such/realization\n"
