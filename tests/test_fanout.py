"""``--devices``: one child a GPU, each its shard, output prefixed, the parent failing when a child
does; on the CPU, the children are small Python processes standing in for the GPU runs."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import epldb.fanout as fanout
from epldb.cli import main
from epldb.fanout import Child, children, parse_devices, run_children
from epldb.shard import Shard


def test_parse_devices() -> None:
    assert parse_devices("all", ["0", "1", "2"]) == ["0", "1", "2"]
    assert parse_devices("2,0", ["0", "1", "2"]) == ["2", "0"]
    assert parse_devices("1", ["4", "5"]) == ["5"]  # indices into what this process sees
    for text, message in [("all", "no CUDA device is visible"), ("0,x", "expected 'all' or GPU indices"),
                          ("0,0", "named twice"), ("3", "GPU 3 is not visible here (2 visible)"), ("", "expected")]:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse_devices(text, ["0", "1"] if text != "all" else [])


def test_each_child_runs_its_shard() -> None:
    kids = children(["0", "3"], ["bench", "x/y", "--out", "/e"])
    assert kids == [Child("0", Shard(1, 2), ("bench", "x/y", "--out", "/e", "--shard", "1/2")),
                    Child("3", Shard(2, 2), ("bench", "x/y", "--out", "/e", "--shard", "2/2"))]


def _stand_in(seen: list[Child], fail: str | None = None):
    """A start() that runs a short Python child printing what it was given (and, on ``fail``'s
    device, failing) with the environment launch() gives a real one."""

    def start(kid: Child) -> subprocess.Popen[str]:
        seen.append(kid)
        code = 1 if kid.device == fail else 0
        script = ("import os, sys; print('shard', sys.argv[-1]); "
                  "print('sees', os.environ['CUDA_VISIBLE_DEVICES'], os.environ['CUDA_DEVICE_ORDER'], flush=True); "
                  f"print('a failure', file=sys.stderr) if {code} else None; sys.exit({code})")
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": kid.device, "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
        return subprocess.Popen([sys.executable, "-c", script, *kid.argv], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    return start


def test_children_run_side_by_side_with_their_output_prefixed() -> None:
    out, seen = io.StringIO(), []
    assert run_children(children(["0", "1"], ["bench"]), out, _stand_in(seen)) == 0
    lines = out.getvalue().splitlines()
    assert sorted(lines[:4]) == ["[gpu 0] sees 0 PCI_BUS_ID", "[gpu 0] shard 1/2", "[gpu 1] sees 1 PCI_BUS_ID",
                                 "[gpu 1] shard 2/2"]
    assert lines[4:] == ["gpu 0 (shard 1/2): done", "gpu 1 (shard 2/2): done"]


def test_a_failing_child_fails_the_run_and_the_others_still_finish() -> None:
    out, seen = io.StringIO(), []
    assert run_children(children(["0", "1", "2"], ["verify"]), out, _stand_in(seen, fail="1")) == 1
    text = out.getvalue()
    assert "[gpu 1] a failure" in text and "[gpu 2] shard 3/3" in text
    assert text.splitlines()[-3:] == ["gpu 0 (shard 1/3): done", "gpu 1 (shard 2/3): failed, exit 1",
                                      "gpu 2 (shard 3/3): done"]


def test_the_launched_child_sees_one_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    captured: dict[str, object] = {}

    def popen(argv: list[str], **kw: object) -> str:
        captured.update(kw, argv=argv)
        return "proc"

    monkeypatch.setattr(fanout.subprocess, "Popen", popen)
    assert fanout.launch(Child("3", Shard(2, 2), ("bench", "--shard", "2/2"))) == "proc"
    env = captured["env"]
    assert isinstance(env, dict) and env["CUDA_VISIBLE_DEVICES"] == "3" and env["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    assert captured["argv"] == [sys.executable, "-m", "epldb", "bench", "--shard", "2/2"]


def test_bench_devices_builds_one_child_command_a_gpu(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    seen: list[Child] = []
    monkeypatch.setattr(fanout, "visible_devices", lambda: ["0", "1"])
    monkeypatch.setattr(fanout, "launch", _stand_in(seen, fail="0"))
    code = main(["bench", "block-reduce", "--devices", "all", "--quick", "--where", "dtype=float32",
                 "--shape", "4096", "--out", str(tmp_path)])
    assert code == 1
    from repository import repository_catalog

    root = str(repository_catalog().root)
    assert [k.argv for k in seen] == [
        ("--root", root, "bench", "block-reduce", "--out", str(tmp_path), "--where=dtype=float32", "--quick",
         "--shape=4096", "--shard", f"{i}/2") for i in (1, 2)]
    assert "gpu 0 (shard 1/2): failed, exit 1" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--devices", "all", "--shard", "1/2"], "give --devices or --shard, not both"),
    (["--devices", "all", "--resume", "r"], "--resume continues one run"),
    (["--devices", "5"], "--devices 5: GPU 5 is not visible here (2 visible)")])
def test_bad_devices_are_usage_errors(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                      args: list[str], message: str) -> None:
    monkeypatch.setattr(fanout, "visible_devices", lambda: ["0", "1"])
    monkeypatch.setattr(fanout, "launch", lambda kid: pytest.fail("no child may start"))
    assert main(["verify", "block-reduce", *args]) == 2
    assert capsys.readouterr().err.startswith(f"epldb verify: {message}")


def test_nvidia_smi_is_asked_about_the_board_the_child_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    from epldb.evidence.environment import smi_id

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    assert smi_id(0) == "3"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-ab12,GPU-cd34")
    assert smi_id(1) == "GPU-cd34"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert smi_id(2) == "2"
