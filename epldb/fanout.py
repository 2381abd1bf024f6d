"""``--devices all|0,1,...``: one verify or bench run spread over the GPUs of one host, one child
process a GPU, each running its shard (epldb.shard) of the same selection into the same evidence
folder.

A child sees only its GPU (``CUDA_VISIBLE_DEVICES``), so CuPy's device 0 in every child is a
different board, and each shard's ceilings and peers are measured on the board that timed its
realizations. ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` makes CUDA number the GPUs as nvidia-smi does, so
``--devices 1`` is the board nvidia-smi calls 1 and the environment's nvidia-smi query reads it.
Every line a child prints comes out prefixed with its device; the parent waits for all of them
and fails when any failed. Nothing here imports CuPy except visible_devices.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

from epldb.shard import Shard


@dataclass(frozen=True)
class Child:
    """One child run: the GPU it sees (a CUDA_VISIBLE_DEVICES entry), its shard and its command."""

    device: str
    shard: Shard
    argv: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"gpu {self.device}"


def visible_devices() -> list[str]:
    """The GPUs this process may hand out: the entries of CUDA_VISIBLE_DEVICES when it is set, else
    0..count-1 as CUDA counts them (none when CUDA cannot be used)."""
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given is not None:
        return [d.strip() for d in given.split(",") if d.strip()]
    try:
        import cupy

        return [str(i) for i in range(cupy.cuda.runtime.getDeviceCount())]
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: no GPUs to hand out
        return []


def parse_devices(text: str, visible: Sequence[str]) -> list[str]:
    """``all`` or ``0,1,...`` (indices into ``visible``) as the CUDA_VISIBLE_DEVICES entry of each
    child; ValueError with a plain message for anything else."""
    if text.strip() == "all":
        if not visible:
            raise ValueError("--devices all: no CUDA device is visible here")
        return list(visible)
    parts = [p.strip() for p in text.split(",")]
    if not parts or not all(p.isdigit() for p in parts):
        raise ValueError(f"--devices {text!r}: expected 'all' or GPU indices joined by commas, e.g. 0,1")
    indices = [int(p) for p in parts]
    if len(set(indices)) != len(indices):
        raise ValueError(f"--devices {text}: a GPU is named twice")
    beyond = [i for i in indices if i >= len(visible)]
    if beyond:
        raise ValueError(f"--devices {text}: GPU {beyond[0]} is not visible here ({len(visible)} visible)")
    return [visible[i] for i in indices]


def children(devices: Sequence[str], argv: Sequence[str]) -> list[Child]:
    """One child a device, the i-th running shard i/n of ``argv`` (an epldb command line without
    --devices and --shard)."""
    n = len(devices)
    return [Child(d, Shard(i, n), (*argv, "--shard", f"{i}/{n}")) for i, d in enumerate(devices, start=1)]


def launch(child: Child) -> subprocess.Popen[str]:
    """Start ``child``: ``python -m epldb ARGV`` seeing its GPU only, its output on one pipe."""
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": child.device, "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
           "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "epldb", *child.argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)


def run_children(kids: Sequence[Child], stream: IO[str] | None = None,
                 start: Callable[[Child], "subprocess.Popen[str]"] | None = None) -> int:
    """Run ``kids`` side by side, their lines prefixed on ``stream``; 0 when every child exited 0,
    else the highest exit status among them (a child killed by a signal counts as 1)."""
    out = stream or sys.stdout
    start = start or launch
    lock = threading.Lock()

    def pump(kid: Child, pipe: IO[str]) -> None:
        for line in pipe:
            with lock:
                out.write(f"[{kid.label}] {line.rstrip(chr(10))}\n")
                out.flush()

    procs: list[subprocess.Popen[str]] = []
    pumps: list[threading.Thread] = []
    try:
        for kid in kids:
            proc = start(kid)
            procs.append(proc)
            if proc.stdout is not None:
                pumps.append(threading.Thread(target=pump, args=(kid, proc.stdout), daemon=True))
                pumps[-1].start()
        codes = [proc.wait() for proc in procs]
    except BaseException:
        # On Ctrl-C the children got it too: let them seal what they measured before leaving.
        for proc in procs:
            proc.wait()
        raise
    for t in pumps:
        t.join()
    worst = 0
    for kid, code in zip(kids, codes):
        status = code if code >= 0 else 1
        worst = max(worst, status)
        out.write(f"{kid.label} (shard {kid.shard}): {'done' if code == 0 else f'failed, exit {code}'}\n")
    return worst
