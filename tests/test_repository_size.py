"""The tracked tree stays small enough for a GPU run to carry it (the device tool carries at most
64 MiB of working tree a call, wheels included): a guard well below that, at 40 MiB."""

from __future__ import annotations

import subprocess

import pytest

from epldb.catalog import default_root

LIMIT_BYTES = 40 * 1024 * 1024


def test_the_tracked_tree_stays_under_40_mib() -> None:
    root = default_root()
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, timeout=60)
    if listing.returncode != 0:
        pytest.skip("not a git checkout: the tracked tree cannot be listed")
    paths = [p for p in listing.stdout.decode().split("\0") if p]
    total = sum((root / p).stat().st_size for p in paths if (root / p).is_file())
    largest = sorted(((root / p).stat().st_size, p) for p in paths if (root / p).is_file())[-5:]
    assert total <= LIMIT_BYTES, (f"the tracked tree holds {total / 2**20:.1f} MiB (limit 40): largest "
                                  + ", ".join(f"{p} {s / 2**20:.1f} MiB" for s, p in reversed(largest)))
