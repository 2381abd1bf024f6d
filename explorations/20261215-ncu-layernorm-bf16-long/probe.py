"""Probe (not evidence): one launch each, inside an NVTX range 'prof' for ncu, of the staged norms at
bf16 128 x 262144 and 1024 x 65536, at their best points in bench 20261130T205751Z-bench-8f9b:
layernorm/two-pass-staged (two exchanges a row, the best layernorm there, 2729 and 3181 GB/s),
layernorm/welford-staged (one exchange, 2541 and 3022) and rmsnorm/staged (one exchange, no bias,
3236 and 3759), so that what layernorm pays over rmsnorm in the same body shows in the stalls.
Usage: python3 probe.py"""
from explorations.ncu import profile_row_cases


def main() -> None:
    profile_row_cases([("layernorm/two-pass-staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
                       ("layernorm/welford-staged", "bfloat16", dict(block=256, cluster=16, unroll=2)),
                       ("rmsnorm/staged", "bfloat16", dict(block=256, cluster=16, unroll=2))], 128, 262144)
    profile_row_cases([("layernorm/two-pass-staged", "bfloat16", dict(block=256, cluster=4, unroll=2)),
                       ("layernorm/welford-staged", "bfloat16", dict(block=256, cluster=2, unroll=4)),
                       ("rmsnorm/staged", "bfloat16", dict(block=256, cluster=4, unroll=2))], 1024, 65536)


if __name__ == "__main__":
    main()
