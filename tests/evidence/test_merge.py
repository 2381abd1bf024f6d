"""``epldb evidence merge``: runs from elsewhere land in their board's folder, checked, all or nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from examples import BASE
from epldb.evidence import EvidenceWriter, Row, read_sealed
from epldb.evidence.environment import board_mismatch, known_devices
from epldb.evidence.merge import merge, plan_merge
from epldb.evidence.provenance import provenance_problems, run_provenance

H200 = {"gpu": "NVIDIA H200", "device_slug": "nvidia-h200", "compute_capability": "9.0"}
H100 = {"gpu": "NVIDIA H100 80GB HBM3", "device_slug": "nvidia-h100-80gb-hbm3", "compute_capability": "9.0"}
DEVICES = {"NVIDIA H100": {"9.0"}, "NVIDIA H200": {"9.0"}}


def make_run(folder: Path, run: str, board: dict[str, Any] = H200, rows: int = 2, **env: Any) -> Path:
    """A sealed run of ``rows`` peer rows under ``folder``; returns its parquet."""
    w = EvidenceWriter(folder, run, {"run": run, **board, "git_commit": "a" * 40, "git_dirty": False, **env}).open()
    for i in range(rows):
        w.append(Row("x/eager", "peer", {}, "float32", {"n": i + 1}, "passed", gbps=100.0 + i))
    w.close()
    return w.sealed_path


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_run(root / "evidence" / "nvidia-h200", "20260101T000000Z-bench-0000")
    return root


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "evidence").rglob("*") if p.is_file())


RUN = "20260102T000000Z-bench-1111-s1of2"


def test_runs_land_in_the_folder_of_their_board(tmp_path: Path) -> None:
    root = _root(tmp_path)
    incoming = tmp_path / "out"
    make_run(incoming / "a", RUN)
    make_run(incoming / "b" / "nvidia-h100-80gb-hbm3", "20260102T000001Z-bench-2222", H100)
    make_run(incoming / "c" / "experiments", "20260102T000002Z-bench-3333")
    result = merge(root, [incoming], DEVICES)
    assert result.ok and result.problems == [] and len(result.merged) == 3
    assert _files(root) == sorted([
        "evidence/nvidia-h200/20260101T000000Z-bench-0000.env.json",
        "evidence/nvidia-h200/20260101T000000Z-bench-0000.parquet",
        f"evidence/nvidia-h200/{RUN}.env.json", f"evidence/nvidia-h200/{RUN}.parquet",
        "evidence/nvidia-h100-80gb-hbm3/20260102T000001Z-bench-2222.env.json",
        "evidence/nvidia-h100-80gb-hbm3/20260102T000001Z-bench-2222.parquet",
        "evidence/nvidia-h200/experiments/20260102T000002Z-bench-3333.env.json",
        "evidence/nvidia-h200/experiments/20260102T000002Z-bench-3333.parquet"])
    dest = root / "evidence" / "nvidia-h200" / f"{RUN}.parquet"
    assert dest.read_bytes() == (incoming / "a" / f"{RUN}.parquet").read_bytes()  # byte for byte
    # Merging the same files again: already present, nothing written, not an error.
    again = merge(root, [incoming / "a" / f"{RUN}.parquet"], DEVICES)
    assert again.ok and not again.merged and [d for _, d in again.present] == [dest]


def _refused(tmp_path: Path, root: Path, *paths: Path) -> list[str]:
    before = _files(root)
    result = merge(root, list(paths), DEVICES)
    assert not result.ok and not [f for f in _files(root) if f not in before], "nothing written"
    return [p.format() for p in result.problems]


def test_an_h100_run_never_lands_among_h200_runs(tmp_path: Path) -> None:
    root = _root(tmp_path)
    # an H100's environment that says it belongs in the H200 folder
    bad = make_run(tmp_path / "out", RUN, {**H100, "device_slug": "nvidia-h200"})
    (line,) = _refused(tmp_path, root, bad)
    assert line.startswith(f"{bad.with_name(RUN + '.env.json').as_posix()}: error: not merged: the environment "
                           "names GPU 'NVIDIA H100 80GB HBM3', whose folder is nvidia-h100-80gb-hbm3, not nvidia-h200")
    assert line.endswith("[evidence-merge]")
    # an H100 run carried in a folder named for the H200
    moved = make_run(tmp_path / "moved" / "nvidia-h200", RUN, H100)
    (line,) = _refused(tmp_path, root, moved)
    assert "it lies in device folder nvidia-h200, but its environment's board is nvidia-h100-80gb-hbm3" in line
    # an H200 whose compute capability is not the one the catalog's targets give it
    odd = make_run(tmp_path / "odd", RUN, {**H200, "compute_capability": "8.0"})
    (line,) = _refused(tmp_path, root, odd)
    assert "gives NVIDIA H200 compute capability 8.0; the catalog's targets give 9.0" in line


def test_a_reused_run_id_with_other_content_is_refused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    other = make_run(tmp_path / "out", "20260101T000000Z-bench-0000", rows=3)
    (line,) = _refused(tmp_path, root, other)
    assert ("run 20260101T000000Z-bench-0000 already exists at evidence/nvidia-h200/20260101T000000Z-bench-0000"
            ".parquet with other content") in line
    # the same rows under another device folder: the id is taken there
    h100 = make_run(tmp_path / "h100", "20260101T000000Z-bench-0000", H100)
    (line,) = _refused(tmp_path, root, h100)
    assert "already exists at evidence/nvidia-h200/20260101T000000Z-bench-0000" in line


def test_rows_of_another_run_and_files_that_do_not_parse_are_refused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    src = tmp_path / "out"
    renamed = make_run(src / "r", "20260103T000000Z-bench-aaaa")
    for suffix in (".parquet", ".env.json"):  # renamed files: the rows still name the old run
        renamed.with_suffix("").with_suffix(suffix).rename(src / "r" / f"20260103T000000Z-bench-bbbb{suffix}")
    env = json.loads((src / "r" / "20260103T000000Z-bench-bbbb.env.json").read_text())
    (src / "r" / "20260103T000000Z-bench-bbbb.env.json").write_text(json.dumps({**env, "run": "20260103T000000Z-bench-bbbb"}))
    make_run(src / "p", "20260103T000001Z-bench-cccc").write_bytes(b"PAR1 not really")
    make_run(src / "j", "20260103T000002Z-bench-dddd")
    (src / "j" / "20260103T000002Z-bench-dddd.env.json").write_text("{not json")
    make_run(src / "e", "20260103T000003Z-bench-eeee")
    (src / "e" / "20260103T000003Z-bench-eeee.env.json").unlink()
    lines = _refused(tmp_path, root, src)
    assert len(lines) == 4
    text = "\n".join(lines)
    assert "bbbb.parquet: error: row 1 (and 1 more) names run '20260103T000000Z-bench-aaaa'" in text
    assert "cccc.parquet: error: does not parse as Parquet" in text
    assert "dddd.env.json: error: does not parse as JSON" in text
    assert "eeee.parquet: error: no environment beside the run" in text


def test_a_refusal_stops_the_whole_merge(tmp_path: Path) -> None:
    root = _root(tmp_path)
    make_run(tmp_path / "out", RUN)
    make_run(tmp_path / "out", "20260101T000000Z-bench-0000", rows=5)  # taken, other content
    assert len(_refused(tmp_path, root, tmp_path / "out")) == 1
    assert plan_merge(root, [tmp_path / "out" / f"{RUN}.parquet"], DEVICES).ok


def test_the_board_rule_reads_the_environment_against_the_folder() -> None:
    assert board_mismatch(H200, "nvidia-h200", DEVICES) == []
    assert board_mismatch({"gpu": "NVIDIA B200"}, "nvidia-b200", DEVICES) == []  # a board the targets do not name
    assert board_mismatch({}, "nvidia-h200") == ["the environment names no GPU (its 'gpu' field)"]
    assert len(board_mismatch(H100, "nvidia-h200")) == 2
    targets = [type("T", (), {"compute_capability": (9, 0), "devices": ("NVIDIA H200",)})()]
    assert known_devices(targets) == {"NVIDIA H200": {"9.0"}}


def test_a_mismatching_run_already_in_a_folder_is_a_provenance_hole(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_run(root / "evidence" / "nvidia-h200", RUN, H100)
    (run,) = run_provenance(root, DEVICES)
    assert any("whose folder is nvidia-h100-80gb-hbm3, not nvidia-h200" in h for h in run.holes)
    (problem,) = [p for p in provenance_problems(root, DEVICES) if p.severity == "error"]
    assert problem.message.endswith("a run lies in the folder of the board that measured it (epldb evidence "
                                    "merge puts it there)")


def test_the_repository_runs_lie_in_the_folders_of_their_boards() -> None:
    from repository import repository_catalog

    cat = repository_catalog()
    wrong = [(r.file, h) for r in run_provenance(cat.root, known_devices(cat.targets.values())) for h in r.holes
             if "folder" in h or "compute capability" in h or "names no GPU" in h]
    assert wrong == []


def epldb(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "epldb", "--root", str(root), "evidence", "merge", *args],
                          capture_output=True, text=True, timeout=300)


def test_the_merge_command(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(BASE, root)
    (root / "catalog" / "targets").mkdir(exist_ok=True)
    shutil.copyfile(Path(__file__).parents[2] / "catalog" / "targets" / "sm_90a.yaml",
                    root / "catalog" / "targets" / "sm_90a.yaml")
    src = make_run(tmp_path / "out", RUN)
    result = epldb(root, str(tmp_path / "out"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == f"merged {src.as_posix()} -> evidence/nvidia-h200/{RUN}.parquet\n"
    assert read_sealed(root / "evidence" / "nvidia-h200" / f"{RUN}.parquet") == read_sealed(src)
    result = epldb(root, str(src))
    assert result.returncode == 0 and result.stdout == f"already present: {RUN} (evidence/nvidia-h200/{RUN}.parquet)\n"
    bad = make_run(tmp_path / "bad", "20260109T000000Z-bench-9999", {**H200, "compute_capability": "8.0"})
    result = epldb(root, str(bad))
    assert result.returncode == 1 and result.stderr == ""
    assert result.stdout.splitlines()[-1] == "nothing merged: 1 run(s) or file(s) refused"
    assert not (root / "evidence" / "nvidia-h200" / bad.name).exists()
    result = epldb(root, str(tmp_path / "nowhere"))
    assert result.returncode == 1 and "nowhere: error: no such file or folder [evidence-merge]" in result.stdout
