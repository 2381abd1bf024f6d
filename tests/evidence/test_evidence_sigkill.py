"""A run killed by SIGKILL at a random moment (mid-row, mid-seal, mid-rename) loses no row it had
written, leaves no file a reader cannot read, and resumes to the full set of rows, once each.

The writer runs in a child process that prints each row's key after its append returns (the
moment the row counts as written); the parent kills it after a random number of rows plus a
random few milliseconds, so kills land inside appends, the seal's Parquet write and its rename."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from epldb.evidence import EvidenceWriter, Row, read_journal, read_sealed
from epldb.evidence.store import journals, run_files

ROWS = 60
RUN = "20261204T000000Z-bench-kill"

CHILD = """
import sys
from epldb.evidence import EvidenceWriter, Row
w = EvidenceWriter(__import__("pathlib").Path(sys.argv[1]), {run!r}, {{"gpu": "test"}}).open()
for n in range(int(sys.argv[2])):
    if w.has(Row("tile-sum/naive", "realization", {{"op": "sum"}}, "float32", {{"n": n}}, "passed")):
        continue
    w.append(Row("tile-sum/naive", "realization", {{"op": "sum"}}, "float32", {{"n": n}}, "passed",
                 time_ms_median=0.001 * (n + 1), gbps=100.0 + n))
    print(n, flush=True)
w.close()
print("sealed", flush=True)
""".format(run=RUN)


def _row(n: int) -> Row:
    return Row("tile-sum/naive", "realization", {"op": "sum"}, "float32", {"n": n}, "passed")


def _start(directory: Path, rows: int = ROWS) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(directory), str(rows)], stdout=subprocess.PIPE,
                            text=True)


def _numbers(rows: list[dict[str, str]]) -> list[int]:
    return [int(r["shape"].split(":")[1].rstrip("}")) for r in rows]


def _kill_after(child: subprocess.Popen[str], rows: int, delay_s: float) -> list[int]:
    """Kill the child after it acknowledged ``rows`` rows, ``delay_s`` later; the rows acknowledged."""
    acked: list[int] = []
    assert child.stdout is not None
    while len(acked) < rows:
        line = child.stdout.readline()
        if not line or line.strip() == "sealed":
            break
        acked.append(int(line))
    time.sleep(delay_s)
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate(timeout=60)
    acked += [int(x) for x in rest.split() if x.isdigit()]  # written before the signal landed
    return acked


@pytest.mark.parametrize("trial", range(10))
def test_sigkill_at_a_random_point_loses_nothing_and_resumes(tmp_path: Path, trial: int) -> None:
    rng = random.Random(trial)
    directory = tmp_path / "evidence" / "dev"
    acked = _kill_after(_start(directory), rng.randint(0, ROWS), rng.choice([0.0, 0.0005, 0.002, 0.01, 0.05]))

    # Whatever the moment: every file a reader finds reads, and every acknowledged row is in it.
    found: set[int] = set()
    for path in run_files(tmp_path):
        found |= set(_numbers(read_sealed(path)))
    for path in journals(tmp_path):
        found |= set(_numbers(read_journal(path)))
    assert set(acked) <= found, f"rows lost: {sorted(set(acked) - found)}"

    # --resume: the same run finishes, each row once, no temporary left behind.
    child = _start(directory)
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0 and out.split()[-1] == "sealed"
    sealed = read_sealed(directory / f"{RUN}.parquet")
    assert sorted(_numbers(sealed)) == list(range(ROWS))
    assert not list(directory.glob(".*.tmp")) and not list(directory.glob("*.csv"))
    with EvidenceWriter(directory, RUN) as again:
        assert all(again.has(_row(n)) for n in range(ROWS))


def test_sigkill_inside_the_seal_keeps_the_journal_and_resumes(tmp_path: Path) -> None:
    """Killed while the seal's Parquet temporary exists (polled for, then SIGKILL): the journal still
    holds every row, no half-written Parquet is visible, and the resume drops the temporary."""
    directory = tmp_path / "evidence" / "dev"
    rows = 4000  # a seal long enough to be caught in the act
    child = _start(directory, rows)
    deadline = time.monotonic() + 120
    caught = False
    while child.poll() is None and time.monotonic() < deadline:
        if list(directory.glob(f".{RUN}.parquet.*.tmp")):
            child.send_signal(signal.SIGKILL)
            caught = True
            break
    child.communicate(timeout=60)
    if not caught:
        pytest.skip("the seal finished between two polls")
    assert not (directory / f"{RUN}.parquet").exists()  # the rename never happened
    assert sorted(_numbers(read_journal(directory / f"{RUN}.csv"))) == list(range(rows))
    resumed = _start(directory, rows)
    out, _ = resumed.communicate(timeout=120)
    assert resumed.returncode == 0 and out.split()[-1] == "sealed"
    assert sorted(_numbers(read_sealed(directory / f"{RUN}.parquet"))) == list(range(rows))
    assert not list(directory.glob(".*.tmp"))


@pytest.mark.gpu
def test_a_bench_killed_half_way_resumes_with_every_row_once(tmp_path: Path) -> None:
    """The real thing on the GPU: `epldb bench` SIGKILLed once its journal holds a few rows, then
    `epldb bench --resume RUN` finishes the run: the rows from before the kill kept, none twice,
    and a second resume finds nothing left to add."""
    from epldb.evidence.row import KEY_COLUMNS

    args = [sys.executable, "-m", "epldb", "bench", "block-reduce/warp-shuffle", "--quick", "--no-peers",
            "--where", "dtype=float32", "--where", "op=sum", "--out", str(tmp_path)]
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline, before = time.monotonic() + 300, []
    while child.poll() is None and time.monotonic() < deadline:
        found = list(tmp_path.glob("*/*-bench-*.csv"))
        if found and len(before := read_journal(found[0])) >= 3:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    child.wait(timeout=60)
    journal = next(tmp_path.glob("*/*-bench-*.csv"), None)
    if journal is None:
        pytest.skip("the bench finished before it could be killed")
    run = journal.name.removesuffix(".csv")

    def keys(rows: list[dict[str, str]]) -> list[tuple[str, ...]]:
        return [tuple(r.get(c, "") for c in KEY_COLUMNS) for r in rows]

    kept = keys(read_journal(journal))
    assert len(kept) >= len(before) and len(set(kept)) == len(kept)
    done = subprocess.run(args + ["--resume", run], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    sealed = keys(read_sealed(journal.with_suffix(".parquet")))
    assert set(kept) <= set(sealed) and len(set(sealed)) == len(sealed) > len(kept)
    again = subprocess.run(args + ["--resume", run], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and keys(read_sealed(journal.with_suffix(".parquet"))) == sealed
