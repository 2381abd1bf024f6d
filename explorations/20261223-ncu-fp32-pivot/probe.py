"""Probe (not evidence): one launch each, inside an NVTX range 'prof' for ncu, of
layernorm/shifted-staged-pipelined at 1024 x 65536, block 256, cluster 8, held 2, slice 8192,
stages 4, unroll 4 (grid 120 at fp32), in three trees: the committed kernel (the row head staged,
/work tree), the head staging off (/tmp/nohead) and the block-local pivot (/tmp/local); fp32, then
bf16 for contrast. run.sh makes the two copies.
Usage: python3 probe.py"""
from explorations.ncu import profile_row_cases

POINT = dict(block=256, cluster=8, held=2, slice=8192, stages=4, unroll=4)


def main() -> None:
    for dtype in ("float32", "bfloat16"):
        for root in (None, "/tmp/nohead", "/tmp/local"):
            print("tree", root or "committed", flush=True)
            profile_row_cases([("layernorm/shifted-staged-pipelined", dtype, POINT)], 1024, 65536, root)


if __name__ == "__main__":
    main()
