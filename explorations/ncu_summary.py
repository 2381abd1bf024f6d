"""Prints an `ncu --csv` metrics file as one block per launch: the launch's ID and kernel name, then
its metrics sorted by name. Used by the ncu explorations' run.sh: python3 explorations/ncu_summary.py
OUT/ncu.csv"""
import csv
import sys


def main(path: str) -> None:
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
    main(sys.argv[1])
