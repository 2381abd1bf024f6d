"""Patch a tree copy (not evidence): the staged-pipelined norms at 256-thread blocks, two or three an
SM, bf16 only. The kernels take MIN_BLOCKS for __launch_bounds__' second argument (the committed
ones ask one block an SM: up to 128 registers at 512 threads); the records' points become block
256, items 64 (a 16 Ki-element slice, as 512 x 32), min_blocks 2 or 3, and grids of 224 or 336
blocks (2 or 3 x 112, the blocks 7 clusters of 16 hold at one an SM). A grid larger than the
device holds runs its late clusters after the others: the bench's best point is the one that fits.
Usage: python3 patch.py TREE"""
import pathlib
import re
import sys

tree = pathlib.Path(sys.argv[1])
for kernel in ("rmsnorm/staged-pipelined.cu", "layernorm/two-pass-staged-pipelined.cu"):
    p = tree / "kernels/operators" / kernel
    s = p.read_text()
    head = "template <int CLUSTER, int BLOCK, int STAGES, int UNROLL, int ITEMS, typename T, epl::RowPath PATH>"
    assert s.count(head) == 1 and s.count("__launch_bounds__(BLOCK, 1)") == 1
    s = s.replace(head, head[:-1] + ", int MIN_BLOCKS>").replace("__launch_bounds__(BLOCK, 1)",
                                                                  "__launch_bounds__(BLOCK, MIN_BLOCKS)")
    p.write_text(s)
for record in ("rmsnorm/staged-pipelined.yaml", "layernorm/two-pass-staged-pipelined.yaml"):
    p = tree / "catalog/realizations" / record
    s = p.read_text()
    assert s.count("epl::kVectorPath>") == 1 and s.count("epl::kScalarPath>") == 1
    s = s.replace("epl::kVectorPath>", "epl::kVectorPath, {min_blocks}>").replace(
        "epl::kScalarPath>", "epl::kScalarPath, {min_blocks}>")
    for name, values in (("cluster", "[4, 16]"), ("block", "[256]"), ("items", "[64]"), ("stages", "[2, 3]"),
                         ("grid_blocks", "[224, 336]"), ("dtype", "[bfloat16]")):
        s, n = re.subn(rf"^  {name}: \[.*\]$", f"  {name}: {values}", s, flags=re.M)
        assert n == 1, name
    s = s.replace("  grid_blocks: [224, 336]\n", "  grid_blocks: [224, 336]\n  min_blocks: [2, 3]\n")
    s, n = re.subn(r"^ *resident: true\n", "", s, flags=re.M)  # no claim: the bench finds which grid fits
    assert n == 1
    p.write_text(s)
