"""tools/carry-parts.sh: a package tree cut into parts here, carried one part a call, joined on the
device only when every part is there and whole, and put on the path with what its .pth files add."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "carry-parts.sh"

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("bash", "xz", "split", "sha256sum")),
                                reason="needs bash, xz, split and sha256sum")


def _tool(carry: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(TOOL), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "EPL_CARRY_DIR": str(carry)})


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("x = 1\n")
    (site / "pkg" / "blob").write_bytes(os.urandom(300_000))  # incompressible: three parts of 100 KiB with the tar's headers
    (site / "extra.pth").write_text(f"import sys; sys.path.insert(0, {str(tmp_path / 'extra')!r})\n")
    return site


def test_parts_join_to_the_tree_and_its_pth_paths(tmp_path: Path) -> None:
    carry, dest = tmp_path / "carry", tmp_path / "dest"
    packed = _tool(carry, "pack", str(_site(tmp_path)), "pkgs", "100K")
    assert packed.returncode == 0, packed.stderr
    assert sorted(p.name for p in carry.iterdir()) == ["pkgs.part-01", "pkgs.part-02", "pkgs.part-03", "pkgs.sha256"]
    assert _tool(carry, "unpack", "pkgs", str(dest)).returncode == 0
    assert (dest / "pkg" / "blob").read_bytes() == (tmp_path / "site" / "pkg" / "blob").read_bytes()
    path = _tool(carry, "path", str(dest))
    assert path.stdout.strip() == f"{dest}:{tmp_path / 'extra'}", path.stderr


def test_a_missing_or_damaged_part_is_named_and_nothing_is_unpacked(tmp_path: Path) -> None:
    carry, dest = tmp_path / "carry", tmp_path / "dest"
    assert _tool(carry, "pack", str(_site(tmp_path)), "pkgs", "100K").returncode == 0
    (carry / "pkgs.part-02").unlink()
    missing = _tool(carry, "unpack", "pkgs", str(dest))
    assert missing.returncode == 1 and "pkgs.part-02" in missing.stderr and not dest.exists()
    assert _tool(carry, "complete", "pkgs").returncode == 1
    (carry / "pkgs.part-02").write_bytes(b"not the part")
    damaged = _tool(carry, "unpack", "pkgs", str(dest))
    assert damaged.returncode == 1 and "pkgs.part-02: FAILED" in damaged.stderr and not dest.exists()
