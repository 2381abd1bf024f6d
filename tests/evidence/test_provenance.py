"""Strict provenance: a run needs its environment and a full commit of the history (or the hash of the
uncommitted tree it measured); holes are errors unless the committed list records them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from epldb.evidence import EvidenceWriter, Row
from epldb.evidence.provenance import provenance_problems, run_provenance


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin"}).stdout.strip()


def _run(root: Path, run: str, env: dict | None) -> None:
    # every environment names its board now (the board rule); the holes here are of the commit
    board = {"gpu": "NVIDIA H200"} if env is not None else {}
    w = EvidenceWriter(root / "evidence" / "nvidia-h200", run, {**board, **(env or {})}).open()
    w.append(Row("x/y", "peer", {}, "float32", {"n": 1}, "passed"))
    w.close()
    if env is None:
        w.env_path.unlink(missing_ok=True)


def test_holes_are_found_and_only_recorded_ones_are_notices(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "README.md").write_text("x\n")
    _git(root, "add", "README.md")
    _git(root, "commit", "-q", "-m", "first")
    sha = _git(root, "rev-parse", "HEAD")
    _run(root, "20260101T000000Z-bench-good", {"git_commit": sha, "git_dirty": False})
    _run(root, "20260101T000001Z-bench-dirt", {"git_commit": sha, "git_dirty": True, "source_tree_sha256": "ab" * 32})
    _run(root, "20260101T000002Z-bench-noen", None)
    _run(root, "20260101T000003Z-bench-shrt", {"git_commit": sha[:7], "git_dirty": False})
    _run(root, "20260101T000004Z-bench-unkn", {"git_commit": "HEAD\nunknown", "git_dirty": None})
    _run(root, "20260101T000005Z-bench-gone", {"git_commit": "f" * 40, "git_dirty": True})
    # a commit object HEAD does not reach (what a rebase leaves behind): a fresh clone lacks it
    orphan = _git(root, "commit-tree", "-m", "rewritten", _git(root, "rev-parse", "HEAD^{tree}"))
    _run(root, "20260101T000006Z-bench-orph", {"git_commit": orphan, "git_dirty": False})
    holes = {r.run.rsplit("-", 1)[1]: r.holes for r in run_provenance(root)}
    assert holes == {
        "good": [], "dirt": [], "noen": ["no environment file"], "shrt": [f"commit abbreviated as {sha[:7]}"],
        "unkn": ['commit not recorded ("HEAD\\nunknown")', "whether the tree was committed is not recorded"],
        "gone": [f"commit {'f' * 40} is not in the history", "an uncommitted tree with no hash of it"],
        "orph": [f"commit {orphan} is not in the history"],
    }
    (root / "evidence" / "provenance-holes.yaml").write_text(
        "20260101T000002Z-bench-noen:\n  - no environment file\n"
        "20260101T000003Z-bench-shrt:\n  - commit abbreviated as 0000000\n")  # not the hole found: no excuse
    found = {(p.location.file.rsplit("-", 1)[1], p.severity) for p in provenance_problems(root)}
    assert found == {("noen.parquet", "notice"), ("shrt.parquet", "error"), ("unkn.parquet", "error"),
                     ("gone.parquet", "error"), ("orph.parquet", "error")}


def test_the_environment_names_the_tree_measured(tmp_path: Path) -> None:
    from epldb.evidence import source_tree_sha256

    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "a.cu").write_text("// a\n")
    before = source_tree_sha256(tmp_path)
    (tmp_path / "kernels" / "a.cu").write_text("// b\n")
    assert source_tree_sha256(tmp_path) != before and len(before) == 64


def test_every_committed_run_is_complete_or_its_holes_are_recorded() -> None:
    from epldb.catalog import default_root

    errors = [p.format() for p in provenance_problems(default_root()) if p.severity == "error"]
    assert errors == [], "\n".join(errors[:5])
