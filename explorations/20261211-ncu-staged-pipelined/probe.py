"""Probe (not evidence): one launch each, inside an NVTX range 'prof' for ncu, of rmsnorm/staged and
rmsnorm/staged-pipelined at 128 x 262144 fp32 and 1024 x 65536 fp32, at the best points of benches
5b29 and 56a2, so that the stalls of the one-row-per-cluster grid and the persistent one can be set
side by side. Usage: python3 probe.py"""
from explorations.ncu import profile_row_cases

PIPELINED = dict(block=512, items=32, stages=2, unroll=4, grid_blocks=128)


def main() -> None:
    profile_row_cases([("rmsnorm/staged", "float32", dict(block=512, cluster=16, unroll=4)),
                       ("rmsnorm/staged-pipelined", "float32", dict(PIPELINED, cluster=16))], 128, 262144)
    profile_row_cases([("rmsnorm/staged", "float32", dict(block=256, cluster=8, unroll=4)),
                       ("rmsnorm/staged-pipelined", "float32", dict(PIPELINED, cluster=4))], 1024, 65536)


if __name__ == "__main__":
    main()
