"""A run's environment record: the GPU, the board, clocks, versions and the commit of the tree.

Provenance is strict: ``git_commit`` is a full sha of the history, or ``uncommitted`` with
``git_diff_sha256`` (a hash of the tree's difference from its base commit, ``git_base``) when the
tree held changes to kernels/, epldb/ or catalog/. ``epldb validate`` reports runs that break this
(epldb.evidence.provenance).
"""

from __future__ import annotations

import os
import platform
import secrets
import subprocess
from datetime import datetime, timezone
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

def new_run_id(kind: str, now: datetime | None = None) -> str:
    """``20261118T153012Z-bench-3fa2``: sorts by time; the suffix keeps parallel runs apart."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{kind}-{secrets.token_hex(2)}"


SOURCE_DIRS = ("kernels", "epldb", "catalog")


def source_tree_sha256(root: Path) -> str:
    """sha256 over the paths and contents of every file under kernels/, epldb/ and catalog/ (caches
    and dot-files left out): names the exact tree a run measured, committed or not, on any machine,
    without git."""
    import hashlib

    h = hashlib.sha256(b"epl-tree-v1")
    for top in SOURCE_DIRS:
        base = Path(root) / top
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            rel = path.relative_to(root).as_posix()
            if not path.is_file() or "__pycache__" in rel or any(part.startswith(".") for part in path.parts[-3:]):
                continue
            h.update(b"\0" + rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def git_commit(root: Path) -> tuple[str, bool | None]:
    """The commit the run's tree is: $EPL_GIT_COMMIT when set (with $EPL_GIT_DIRTY, "1" or "0", if
    given), else HEAD's commit and whether kernels/, epldb/ or catalog/ differ from it, else "unknown".

    The variable wins because a lent GPU machine runs a copy of the working tree over git metadata
    of its own (the lending tool's snapshot, from when the session began): there HEAD names an
    older commit and every later change reads as dirty."""
    given = os.environ.get("EPL_GIT_COMMIT", "").strip()
    if given:
        flag = os.environ.get("EPL_GIT_DIRTY", "").strip()
        return given, {"1": True, "0": False}.get(flag)
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=20)
        if head.returncode == 0 and head.stdout.strip():
            status = subprocess.run(["git", "status", "--porcelain", "--", "kernels", "epldb", "catalog"], cwd=root,
                                    capture_output=True, text=True, timeout=20)
            dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
            return head.stdout.strip(), dirty
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown", None


_SMI_FIELDS = ["driver_version", "uuid", "pci.bus_id", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem", "power.limit",
               "pstate", "persistence_mode", "compute_mode", "temperature.gpu"]


def smi_id(index: int) -> str:
    """nvidia-smi's name for CUDA's device ``index``: nvidia-smi ignores CUDA_VISIBLE_DEVICES, so a
    process that sees one GPU of several (a --devices child) must name the board the variable
    gave it (an index or a UUID, both of which ``--id`` takes), not its own device 0."""
    visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    return visible[index] if index < len(visible) else str(index)


def _nvidia_smi(index: int | str, fields: list[str] | None = None) -> dict[str, str]:
    """Read-only nvidia-smi query of the driver and clocks (never changes any setting)."""
    fields = fields or _SMI_FIELDS
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--id={index}", f"--query-gpu={','.join(fields)}", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0 or not out.stdout.strip():
        # An older nvidia-smi may not know one of the fields: the driver version alone, then.
        return _nvidia_smi(index, ["driver_version"]) if len(fields) > 1 else {}
    values = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
    return dict(zip(fields, values))


def _version(module: str) -> str | None:
    try:
        mod = __import__(module)
    except Exception:  # noqa: BLE001 - an optional package that fails to import has no version here
        return None
    return str(getattr(mod, "__version__", "unknown"))


def collect_environment(root: Path, run_id: str, command: str) -> dict[str, Any]:
    """The run's environment record (GPU, versions, clocks, commit, time); ceilings come later."""
    import cupy

    from epldb.compile.toolchain import find_toolchain
    from epldb.device import device_info

    dev = device_info()
    rt = cupy.cuda.runtime
    commit, dirty = git_commit(root)
    smi = _nvidia_smi(smi_id(dev.index))
    return {
        "run": run_id,
        "command": command,
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "gpu": dev.name,
        "device_slug": dev.slug,
        "compute_capability": f"{dev.compute_capability[0]}.{dev.compute_capability[1]}",
        "sm_count": dev.sm_count,
        "l2_bytes": dev.l2_bytes,
        "memory_bytes": dev.total_memory,
        "driver": smi.get("driver_version"),
        "driver_cuda_version": rt.driverGetVersion(),
        "cuda_runtime_version": rt.runtimeGetVersion(),
        "nvrtc": find_toolchain().nvrtc_version,
        "cuda_headers": find_toolchain().headers_version,
        "cupy": cupy.__version__,
        "torch": _version("torch"),
        "numpy": _version("numpy"),
        "python": platform.python_version(),
        # Which board: runs on two H200s can differ where a kernel's clusters depend on how the
        # board's GPCs place them (a persistent cluster grid).
        "gpu_uuid": smi.get("uuid"),
        "pci_bus_id": smi.get("pci.bus_id"),
        "clocks": {k: v for k, v in smi.items() if k not in ("driver_version", "uuid", "pci.bus_id")},
        "cluster_places": _cluster_places(dev),
        "cupy_accelerators": os.environ.get("CUPY_ACCELERATORS", "(default)"),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "git_commit": commit,
        "git_dirty": dirty,
        # With git_dirty, the commit is the base and this hash names the uncommitted tree measured.
        "source_tree_sha256": source_tree_sha256(root),
        "ceilings": {},
    }


def _cluster_places(dev: Any) -> dict[str, int] | str | None:
    """Clusters of 2 to 16 blocks the board places at once at one block an SM (epldb.occupancy):
    what a persistent cluster grid gets here. None before compute capability 9.0 (no clusters);
    the driver's refusal as text, so that the run goes on."""
    if dev.compute_capability < (9, 0):
        return None
    from epldb.occupancy import cluster_places

    try:
        return {str(size): n for size, n in cluster_places(dev.max_shared_optin).items()}
    except Exception as exc:  # noqa: BLE001 (a record of the environment must not stop the run)
        return f"not measured: {type(exc).__name__}: {exc}"




# --- which board a run measured ------------------------------------------------------------------------


def known_devices(targets: Iterable[Any]) -> dict[str, set[str]]:
    """GPU name → the compute capabilities ("9.0") the catalog's target profiles give it (each
    profile's ``devices`` and ``compute_capability``)."""
    out: dict[str, set[str]] = {}
    for t in targets:
        cc = getattr(t, "compute_capability", None)
        for name in getattr(t, "devices", ()):
            if cc:
                out.setdefault(str(name), set()).add(f"{cc[0]}.{cc[1]}")
    return out


def board_mismatch(env: Mapping[str, Any], folder: str, devices: Mapping[str, set[str]] | None = None) -> list[str]:
    """Why a run with environment ``env`` does not belong in ``evidence/<folder>/``: the GPU it
    names is another board's (the folder is the slug of the name CUDA reports, so an H100 run can
    never sit among H200 runs), the ``device_slug`` it recorded is another folder, or the catalog's
    target profiles give its GPU another compute capability than it recorded. Empty when it
    belongs."""
    from epldb.device import slug_of

    gpu = env.get("gpu")
    if not isinstance(gpu, str) or not gpu.strip():
        return ["the environment names no GPU (its 'gpu' field)"]
    found: list[str] = []
    if slug_of(gpu) != folder:
        found.append(f"the environment names GPU {gpu!r}, whose folder is {slug_of(gpu)}, not {folder}")
    slug = env.get("device_slug")
    if slug is not None and slug != folder:
        found.append(f"the environment records device folder {slug!r}, not {folder}")
    expected = (devices or {}).get(gpu)
    cc = env.get("compute_capability")
    if expected and cc is not None and str(cc) not in expected:
        found.append(f"the environment gives {gpu} compute capability {cc}; the catalog's targets give "
                     f"{', '.join(sorted(expected))}")
    return found
