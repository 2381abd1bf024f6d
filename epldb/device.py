"""The GPU in use and the target its machine code is built for: what CUDA reports of the device
(through CuPy, imported inside the functions, so this module imports on machines without a GPU)
and the choice among a realization's declared targets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from epldb.launch import LaunchLimits


def slug_of(name: str) -> str:
    """The evidence folder of a GPU by the name CUDA reports: 'NVIDIA H200' → 'nvidia-h200',
    'NVIDIA H100 80GB HBM3' → 'nvidia-h100-80gb-hbm3' (so two boards never share a folder)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown-gpu"


@dataclass(frozen=True)
class DeviceInfo:
    """The GPU in use, as CUDA reports it."""

    index: int
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    l2_bytes: int
    total_memory: int
    max_shared_optin: int

    @property
    def arch(self) -> str:
        return f"sm_{self.compute_capability[0]}{self.compute_capability[1]}"

    @property
    def slug(self) -> str:
        """Folder name for evidence: 'NVIDIA H200' → 'nvidia-h200'."""
        return slug_of(self.name)

    def limits(self) -> LaunchLimits:
        return LaunchLimits(max_shared_bytes=self.max_shared_optin, sms=self.sm_count)


_DEVICE: dict[int, DeviceInfo] = {}


def gpu_available() -> bool:
    """Whether CuPy is importable and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - any failure (no cupy, no driver, no device) means "no"
        return False


def device_info() -> DeviceInfo:
    import cupy

    index = cupy.cuda.Device().id
    if index not in _DEVICE:
        props = cupy.cuda.runtime.getDeviceProperties(index)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        _DEVICE[index] = DeviceInfo(
            index=index,
            name=name,
            compute_capability=(int(props["major"]), int(props["minor"])),
            sm_count=int(props["multiProcessorCount"]),
            l2_bytes=int(props.get("l2CacheSize", 0)),
            total_memory=int(props.get("totalGlobalMem", 0)),
            max_shared_optin=int(props.get("sharedMemPerBlockOptin", 48 * 1024)),
        )
    return _DEVICE[index]


_TARGET = re.compile(r"^sm_(\d+?)(\d)(a?)$")


def choose_target(targets: tuple[str, ...] | list[str], cc: tuple[int, int]) -> str | None:
    """The declared target whose machine code runs best on a device of compute capability ``cc``.

    A cubin runs on devices of the same major version and an equal or newer minor; an
    arch-specific target (``sm_90a``) only on exactly that capability. Among those that run, the
    newest wins, and an exact arch-specific match (it may use wgmma, setmaxnreg) beats plain.
    """
    best: tuple[tuple[int, int, int], str] | None = None
    for t in targets:
        m = _TARGET.match(t)
        if m is None:
            continue
        major, minor, specific = int(m.group(1)), int(m.group(2)), bool(m.group(3))
        runs = major == cc[0] and (minor == cc[1] if specific else minor <= cc[1])
        if not runs:
            continue
        rank = (minor, int(specific), 0)
        if best is None or rank > best[0]:
            best = (rank, t)
    return best[1] if best else None
