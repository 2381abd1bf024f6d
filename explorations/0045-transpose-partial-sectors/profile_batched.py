"""Experiment 0045, third profile: sector-tile after its loads were batched (bf16 odd and aligned, fp32 odd)."""
import sys
sys.path.insert(0, "tools")
import ncu
cases = [
    ("transpose/sector-tile", {"batch": 1, "rows": 8191, "cols": 4097}, {"row_bytes": 128, "by": 8, "dtype": "bfloat16"}),
    ("transpose/sector-tile", {"batch": 1, "rows": 8192, "cols": 8192}, {"row_bytes": 128, "by": 8, "dtype": "bfloat16"}),
    ("transpose/sector-tile", {"batch": 1, "rows": 8191, "cols": 4097}, {"row_bytes": 128, "by": 8, "dtype": "float32"}),
]
ncu.profile_cases(cases)
