"""Experiment 0045: the staged transposes at aligned and odd shapes (each side misaligned alone) and
the sector-tile rung, one launch each under ncu (tools/ncu.py profile_cases)."""
import sys
sys.path.insert(0, "tools")
import ncu
F, B = "float32", "bfloat16"
cases = []
for dt in (F, B):
    for r, c in ((8192, 8192), (8191, 4097), (8192, 4097), (8191, 4096)):
        cases.append(("transpose/swizzled-tile", {"batch": 1, "rows": r, "cols": c}, {"tile": 32, "by": 8, "dtype": dt}))
    cases.append(("transpose/swizzled-tile", {"batch": 1, "rows": 8191, "cols": 4097}, {"tile": 64, "by": 8, "dtype": dt}))
    for rb in (128, 256):
        cases.append(("transpose/sector-tile", {"batch": 1, "rows": 8191, "cols": 4097}, {"row_bytes": rb, "by": 8, "dtype": dt}))
    cases.append(("transpose/sector-tile", {"batch": 1, "rows": 8192, "cols": 8192}, {"row_bytes": 128, "by": 8, "dtype": dt}))
cases.append(("transpose/tma-tiles", {"batch": 1, "rows": 8192, "cols": 8192}, {"block": 256, "dtype": B}))
ncu.profile_cases(cases)
