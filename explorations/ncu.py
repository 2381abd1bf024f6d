"""What the ncu explorations share (not evidence).

In a probe, launched under ncu with `--nvtx --nvtx-include prof/`:
    from explorations.ncu import launch_in_range
    launch_in_range(go)   # three warm-up launches, then one inside the NVTX range 'prof'
    profile_row_cases(cases, rows, cols)   # the same for row operators at one shape, fresh inputs each

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


def profile_row_cases(cases: list[tuple[str, str, dict]], rows: int, cols: int, root: str | None = None) -> None:
    """For each (realization, dtype, point) of a row operator: fresh random x (rows x cols) and
    per-column weight and bias, as many as the contract reads, then launch_in_range. `root`: a
    tree copy's root (a patched tree), else this repository."""
    import torch

    from epldb.contracts.peers import from_torch
    from epldb.runner import default_catalog, prepare

    catalog = default_catalog(root)
    for rid, dtype, point in cases:
        dt = getattr(torch, dtype)
        pool = {"x": torch.randn(rows, cols, device="cuda", dtype=dt),
                "weight": torch.randn(cols, device="cuda", dtype=dt),
                "bias": torch.randn(cols, device="cuda", dtype=dt)}
        launcher = prepare(catalog, rid, {"rows": rows, "cols": cols}, {**point, "dtype": dtype})
        arrays = {n: from_torch(pool[n]) for n in launcher.contract.input_names}
        arrays.update(launcher.allocate_outputs())
        launch_in_range(launcher.bind(arrays))
        print("done", rid, dtype, flush=True)


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
