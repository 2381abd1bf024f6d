"""What the ncu explorations share (not evidence).

In a probe, launched under ncu with `--nvtx --nvtx-include prof/`:
    from explorations.ncu import launch_in_range
    launch_in_range(go)   # three warm-up launches, then one inside the NVTX range 'prof'

After the run, the metrics file as one block per launch (its ID and kernel name, then its metrics
sorted by name):
    python3 explorations/ncu.py OUT/ncu.csv
"""
import csv
import sys
from typing import Callable


def launch_in_range(go: Callable[[], object]) -> None:
    """Warms `go` up with three launches, then launches it once inside the NVTX range 'prof', the
    one launch ncu profiles."""
    import torch  # on the device only: the summary below needs no torch

    for _ in range(3):
        go()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("prof")
    go()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def summarize(path: str) -> None:
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]  # ncu's own log lines have fewer fields
    head, body = rows[0], rows[1:]
    i, k, m, v = (head.index(c) for c in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
    launches: dict[str, dict[str, str]] = {}
    for r in body:  # one launch per ID, in the probe's order
        launches.setdefault(f"{r[i]:>3} {r[k][:90]}", {})[r[m]] = r[v]
    for name, metrics in launches.items():
        print(name)
        for key in sorted(metrics):
            print(f"    {key:70} {metrics[key]}")


if __name__ == "__main__":
    summarize(sys.argv[1])
