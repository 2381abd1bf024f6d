"""Patch a tree copy (not evidence): the staged-pipelined norms at bfloat16 with a third slice,
32768 elements (64 KiB a stage), so that a cluster of 8 covers a 262144-element row and a cluster
of 2 a 65536-element one. fp32 is left out: a 128 KiB stage cannot be double-buffered, and its
points would serve no shape. No kernel changes: ITEMS = slice / block as committed.

Usage: python3 patch.py TREE"""
import pathlib
import sys

tree = pathlib.Path(sys.argv[1])
for rid in ("rmsnorm/staged-pipelined", "layernorm/two-pass-staged-pipelined"):
    path = tree / "catalog/realizations" / f"{rid}.yaml"
    s = path.read_text()
    for old, new in (("  slice: [8192, 16384]\n", "  slice: [8192, 16384, 32768]\n"),
                     ("  dtype: [float32, bfloat16]\n", "  dtype: [bfloat16]\n")):
        assert s.count(old) == 1, (rid, old)
        s = s.replace(old, new)
    path.write_text(s)
print(f"patched {tree}")
