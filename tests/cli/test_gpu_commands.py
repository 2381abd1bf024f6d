"""``epldb verify`` and ``epldb bench`` as a user runs them: bad options end in one plain line."""

from __future__ import annotations

import subprocess
import sys

import pytest


def epldb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "epldb", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", ["bench", "verify"])
@pytest.mark.parametrize(("shard", "message"), [
    ("0/2", "--shard 0/2: I must lie between 1 and N (2)"), ("3/2", "--shard 3/2: I must lie between 1 and N (2)"),
    ("a/b", "--shard 'a/b': expected I/N with whole numbers, e.g. 1/2"), ("1/0", "--shard 1/0: N must be at least 1")])
def test_a_bad_shard_is_one_plain_line(command: str, shard: str, message: str) -> None:
    result = epldb(command, "--shard", shard, "block-reduce")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"epldb {command}: {message}\n"
