"""The bad-input corpus of command lines: a bad value, an unknown id or a root that is not a
repository is one plain message and the documented exit status (2 for bad usage, 1 for a root
without a catalog), never a traceback or an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples import BASE
from robustness.corpus import REPOSITORY, run_cli

HUGE = "9" * 5000

# (arguments, a fragment of the message); run against this repository's catalog, whose subjects
# have contracts and evidence.
USAGE = [
    (["select", "softmax", "--shape", "12xx", "--dtype", "bfloat16"], "takes ROWSXCOLS"),
    (["select", "softmax", "--shape", "0x0", "--dtype", "bfloat16"], "must be at least 1"),
    (["select", "softmax", "--shape", "99999999999999999999999x1", "--dtype", "bfloat16"], "at most 15 digits"),
    (["select", "softmax", "--shape", f"{HUGE}x1", "--dtype", "bfloat16"], "at most 15 digits"),
    (["select", "softmax", "--shape", "8x8x8", "--dtype", "bfloat16"], "takes ROWSXCOLS"),
    (["select", "softmax", "--shape", "8x8", "--dtype", "nosuch"], "no verified realization for dtype 'nosuch'"),
    (["select", "nosuch", "--shape", "8x8", "--dtype", "bfloat16"], "no operator or primitive 'nosuch'"),
    (["select", "softmax", "--shape", "8x8", "--dtype", "bfloat16", "--problem", "op"], "write KEY=VALUE"),
    (["bench", "softmax", "--shape", f"1x{HUGE}"], "at most 15 digits"),
    (["bench", "softmax", "--shape", "0x5"], "positive integers"),
    (["compile", "nosuch"], "no realization, primitive or operator 'nosuch'"),
    (["compile", "softmax", "--where", "blah"], "--where expects PARAM=V1,V2"),
    (["compile", "softmax", "--where", "nosuch=1"], "no selected realization has a parameter 'nosuch'"),
    (["compile", "softmax", "--target", "sm_99"], "none of the selected realizations declares it"),
    (["show", "../../etc/passwd"], "no record"),
    (["list", "--family", "nosuch"], "no family 'nosuch'"),
    (["new", "realization", "nosuch", "thing"], "no primitive 'nosuch'"),
    (["new", "realization", "block-reduce", "../../escape"], "lower-case words"),
    (["validate", "--no-such-option"], "unrecognized arguments"),
    (["frobnicate"], "invalid choice"),
]


@pytest.mark.parametrize(("args", "says"), USAGE, ids=[" ".join(a)[:50] for a, _ in USAGE])
def test_bad_usage_is_one_plain_message_and_exit_2(args: list[str], says: str) -> None:
    outcome = run_cli(REPOSITORY, args, in_subprocess=False)
    streams = outcome.out + outcome.err
    assert "Traceback" not in streams and "internal error" not in streams, streams
    assert outcome.rc == 2, f"exit {outcome.rc}:\n{streams}"
    assert says in outcome.err, outcome.err
    assert len(streams) < 2 * len(" ".join(args)) + 2000, "the message repeats or dumps more than the input"


@pytest.mark.parametrize("layout", ["missing", "a-file", "empty", "catalog-folder"])
def test_a_root_that_is_not_a_repository_is_one_message_and_exit_1(tmp_path: Path, layout: str) -> None:
    root = tmp_path / "root"
    if layout == "a-file":
        root.write_text("not a folder\n")
    elif layout == "empty":
        (root / "catalog" / "features").mkdir(parents=True)
    elif layout == "catalog-folder":
        root = tmp_path / "catalog"
        (root / "schema").mkdir(parents=True)
    # One subprocess case proves the exit status and the absence of a traceback end to end.
    outcome = run_cli(root, ["validate", "--schema-only"], in_subprocess=layout == "missing")
    streams = outcome.out + outcome.err
    assert "Traceback" not in streams and "internal error" not in streams, streams
    assert outcome.rc == 1, f"exit {outcome.rc}:\n{streams}"
    assert len([line for line in outcome.out.splitlines() if ": error: " in line]) == 1, streams


def test_show_of_a_record_that_failed_to_load_gives_its_problem(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(BASE, root)
    real = root / "catalog/realizations/tile-sum/naive.yaml"
    real.write_text(real.read_text().replace("targets: [sm_80, sm_90a]", "targets: [sm_80, sm_90a"))
    outcome = run_cli(root, ["show", "tile-sum/naive"], in_subprocess=False)
    streams = outcome.out + outcome.err
    assert "Traceback" not in streams and "internal error" not in streams, streams
    assert outcome.rc == 1, streams
    lines = [line for line in outcome.out.splitlines() if ": error: " in line]
    assert len(lines) == 1 and lines[0].startswith("catalog/realizations/tile-sum/naive.yaml:18:12:") and "YAML" in lines[0]
