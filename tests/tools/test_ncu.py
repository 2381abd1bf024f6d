"""tools/ncu.py: the ncu command line the experiments' probes run under, and the summary of ncu's
CSV (its log lines and the probe's prints skipped), without a GPU or torch."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("ncu_tool", ROOT / "tools" / "ncu.py")
assert _SPEC is not None and _SPEC.loader is not None
ncu = importlib.util.module_from_spec(_SPEC)
sys.modules["ncu_tool"] = ncu
_SPEC.loader.exec_module(ncu)

_HEAD = ('"ID","Process ID","Process Name","Host Name","thread Domain","Id:Domain","Kernel Name","Context","Stream",'
         '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _row(launch: int, kernel: str, metric: str, value: str) -> str:
    return (f'"{launch}","569","python3.12","127.0.0.1","569","","{kernel}","1","7","(1024, 1, 1)","(4096, 1, 1)",'
            f'"0","9.0","Command line profiler metrics","{metric}","","{value}"')


CSV = "\n".join([
    "==WARNING== Note: Running with unmodified GPU clocks.",
    "==PROF== Connected to process 569 (/usr/bin/python3.12)",
    "done rmsnorm/staged float32",
    _HEAD,
    _row(0, "triton_red_fused__fused_rms_norm_0", "gpu__time_duration.sum", "125,248"),
    _row(0, "triton_red_fused__fused_rms_norm_0", "dram__bytes_read.sum", "268,508,928"),
    _row(1, "rmsnorm_staged<16, 512, 4, float>", "gpu__time_duration.sum", "127,200"),
    "==PROF== Disconnected from process 569",
]) + "\n"


def test_summary_is_one_block_per_launch_in_order() -> None:
    assert ncu.summarize(CSV).splitlines() == [
        "  0 triton_red_fused__fused_rms_norm_0",
        f"    {'dram__bytes_read.sum':70} 268,508,928",
        f"    {'gpu__time_duration.sum':70} 125,248",
        "  1 rmsnorm_staged<16, 512, 4, float>",
        f"    {'gpu__time_duration.sum':70} 127,200",
    ]
    assert ncu.summarize("==PROF== nothing profiled\n") == ""


def test_command_profiles_the_range_with_every_metric_once() -> None:
    argv = ncu.command("probe.py", ["sm__cycles_active.avg", "dram__bytes_read.sum"])
    assert argv[:6] == ["ncu", "--clock-control", "none", "--nvtx", "--nvtx-include", "prof/"]
    assert argv[-3:] == ["--csv", "python3", "probe.py"]
    metrics = argv[argv.index("--metrics") + 1].split(",")
    assert metrics[: len(ncu.METRICS)] == list(ncu.METRICS) and metrics[-1] == "sm__cycles_active.avg"
    assert len(metrics) == len(set(metrics)) == len(ncu.METRICS) + 1


def test_the_command_line_tool(tmp_path: Path) -> None:
    path = tmp_path / "ncu.csv"
    path.write_text(CSV)
    run = [sys.executable, str(ROOT / "tools" / "ncu.py")]
    out = subprocess.run([*run, "summarize", str(path)], capture_output=True, text=True, check=True).stdout
    assert out == ncu.summarize(CSV)
    out = subprocess.run([*run, "command", "probe.py"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ncu --clock-control none --nvtx --nvtx-include prof/ --metrics ")
    assert subprocess.run([*run], capture_output=True, text=True).returncode == 2
