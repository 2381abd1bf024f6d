"""Patch a tree copy (not evidence): layernorm/shifted-staged-pipelined with the pivot read from the
block's own staged slice and the states merged by Chan (local_shift.cuh), in place of the row's
first element from global memory and a merge of plain sums.

Usage: python3 patch.py TREE"""
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
tree = pathlib.Path(sys.argv[1])
shutil.copy(HERE / "local_shift.cuh", tree / "kernels/include/epl/row/local_shift.cuh")
cu = tree / "kernels/operators/layernorm/shifted-staged-pipelined.cu"
s = cu.read_text()
for old, new in (("#include <epl/row/shifted_sums.cuh>", "#include <epl/row/local_shift.cuh>"),
                 ("epl::LayerNormShiftedSums{{eps}}", "epl::LayerNormLocalShift{{eps}}")):
    assert s.count(old) == 1, old
    s = s.replace(old, new)
cu.write_text(s)
print(f"patched {tree}")
