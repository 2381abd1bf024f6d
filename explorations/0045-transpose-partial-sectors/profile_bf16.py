"""Experiment 0045, second profile: the bf16 cases the first one's 150 s did not reach (sector-tile
at the odd and aligned shapes, the swizzled tile with one side odd, tma-tiles aligned)."""
import sys
sys.path.insert(0, "tools")
import ncu
B = "bfloat16"
cases = [
    ("transpose/sector-tile", {"batch": 1, "rows": 8191, "cols": 4097}, {"row_bytes": 128, "by": 8, "dtype": B}),
    ("transpose/sector-tile", {"batch": 1, "rows": 8191, "cols": 4097}, {"row_bytes": 256, "by": 8, "dtype": B}),
    ("transpose/sector-tile", {"batch": 1, "rows": 8192, "cols": 8192}, {"row_bytes": 128, "by": 8, "dtype": B}),
    ("transpose/swizzled-tile", {"batch": 1, "rows": 8192, "cols": 4097}, {"tile": 32, "by": 8, "dtype": B}),
    ("transpose/swizzled-tile", {"batch": 1, "rows": 8191, "cols": 4096}, {"tile": 32, "by": 8, "dtype": B}),
    ("transpose/tma-tiles", {"batch": 1, "rows": 8192, "cols": 8192}, {"block": 256, "dtype": B}),
]
ncu.profile_cases(cases)
