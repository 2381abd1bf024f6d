"""`epldb site` from the command line, as the README runs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_fixtures import copy_repository

from epldb.cli import main


def test_epldb_site_builds_into_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_repository(tmp_path / "repo", evidence=False)
    out = tmp_path / "built"
    assert main(["--root", str(root), "site", "--out", str(out), "--no-compile"]) == 0
    printed = capsys.readouterr().out
    assert "generated" in printed and "built the site" in printed
    assert (out / "index.html").is_file()
    assert (out / "generated" / "evidence.html").is_file()
    assert not (root / "site").exists(), "--out was not honoured"


def test_generate_only_writes_markdown(tmp_path: Path) -> None:
    root = copy_repository(tmp_path / "repo", evidence=False)
    assert main(["--root", str(root), "site", "--generate-only", "--no-compile"]) == 0
    generated = root / "site_src" / "generated"
    assert (generated / "_build" / "nav.yml").is_file() and (generated / "_build" / "home.md").is_file()
    assert list(generated.rglob("*.md"))
    assert not (root / "site").exists()
