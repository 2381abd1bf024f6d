"""`epldb new realization PRIMITIVE NAME`: a record and kernel stub that validate and compile at once,
and never overwrite anything."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from site_fixtures import copy_repository

import epldb
from epldb.cli import main


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repository(tmp_path_factory.mktemp("new"))


def _compile_ok(root: Path, rid: str) -> None:
    compile_mod = pytest.importorskip("epldb.compile")
    cat = epldb.load(root)
    r = cat.realizations[rid]
    for target in r.targets:
        build = compile_mod.compile_realization(cat.root, r, target)
        errors = [p.format() for p in build.problems if p.severity == "error"]
        assert not errors, "\n".join(errors)
        assert build.entries


def _own_problems(root: Path, *files: str) -> list[str]:
    cat = epldb.load(root)
    return [p.format() for p in cat.problems if p.location.file in files]


def test_scaffold_from_a_sibling_validates_and_compiles(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cat = epldb.load(repo)
    prim = next(p for p in cat.primitives.values() if cat.realizations_of(p.id))
    sibling = cat.realizations_of(prim.id)[0]
    assert main(["--root", str(repo), "new", "realization", prim.id, "my-idea"]) == 0
    out = capsys.readouterr().out
    record = f"catalog/realizations/{prim.id}/my-idea.yaml"
    kernel = f"kernels/{prim.family}/{prim.id}/my-idea.cu"
    assert (repo / record).is_file() and (repo / kernel).is_file()
    assert f"wrote {record}" in out and f"wrote {kernel}" in out
    assert not _own_problems(repo, record, kernel)
    data = yaml.safe_load((repo / record).read_text())
    assert data["status"] == "draft" and data["strategy"] and data["params"]
    assert data["targets"] == ["sm_80", "sm_90a"]
    assert data["launch"] == sibling.data.get("launch")
    assert data["params"] == sibling.data["params"]
    src = (repo / kernel).read_text()
    assert "#include <epl/" in src and f"{prim.id}/my-idea" in src.splitlines()[0]
    _compile_ok(repo, f"{prim.id}/my-idea")


def test_scaffold_without_a_sibling_is_a_minimal_kernel(repo: Path) -> None:
    cat = epldb.load(repo)
    prim = next(p for p in cat.primitives.values() if not cat.realizations_of(p.id))
    assert main(["--root", str(repo), "new", "realization", prim.id, "first-try", "--title", "First try"]) == 0
    record = f"catalog/realizations/{prim.id}/first-try.yaml"
    kernel = f"kernels/{prim.family}/{prim.id}/first-try.cu"
    assert not _own_problems(repo, record, kernel)
    data = yaml.safe_load((repo / record).read_text())
    assert data["title"] == "First try" and "launch" not in data
    assert "#include <epl/" in (repo / kernel).read_text()
    _compile_ok(repo, f"{prim.id}/first-try")


def test_refuses_to_overwrite(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cat = epldb.load(repo)
    prim = next(p for p in cat.primitives.values() if cat.realizations_of(p.id))
    kernel = repo / "kernels" / prim.family / prim.id / "only-kernel.cu"
    kernel.parent.mkdir(parents=True, exist_ok=True)
    kernel.write_text("// someone's work\n")
    assert main(["--root", str(repo), "new", "realization", prim.id, "only-kernel"]) == 2
    err = capsys.readouterr().err
    assert "refusing to overwrite" in err and "only-kernel.cu" in err
    assert kernel.read_text() == "// someone's work\n"
    assert not (repo / "catalog" / "realizations" / prim.id / "only-kernel.yaml").exists()
    existing = cat.realizations_of(prim.id)[0]
    assert main(["--root", str(repo), "new", "realization", prim.id, existing.name]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["no-such-primitive", "x"], "no primitive 'no-such-primitive'"),
    (["block-reduce", "Bad_Name"], "lower-case words joined by single hyphens"),
])
def test_bad_usage_exits_2(repo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["--root", str(repo), "new", "realization", *args]) == 2
    assert message in capsys.readouterr().err
