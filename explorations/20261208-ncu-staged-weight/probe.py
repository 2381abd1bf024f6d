"""Probe (not evidence): one launch each, inside an NVTX range 'prof' for ncu, of the staged softmax,
rmsnorm and layernorm at 128 x 262144, both dtypes, at their best points of bench
20261130T165407Z-bench-5b29, so that the counters of the three rewrites can be set side by side:
none, one and two parameter slices read from L2 per row. Usage: python3 probe.py"""
from explorations.ncu import profile_row_cases

ROWS, COLS = 128, 262144
CASES = [  # realization, dtype, point
    ("softmax/online-staged", "float32", dict(block=512, cluster=16, unroll=4)),
    ("rmsnorm/staged", "float32", dict(block=512, cluster=16, unroll=4)),
    ("layernorm/two-pass-staged", "float32", dict(block=512, cluster=16, unroll=4)),
    ("softmax/online-staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
    ("rmsnorm/staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
    ("layernorm/two-pass-staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
]


def main() -> None:
    profile_row_cases(CASES, ROWS, COLS)


if __name__ == "__main__":
    main()
