"""Patch a tree copy (not evidence, outputs wrong on purpose): RowCluster's all-reduce without its
cluster exchange (`nocluster`: each block keeps its own block's state) or without any exchange
(`noreduce`: each thread keeps its own state, no barrier, no shuffle). Bounds what the row
statistics' exchanges cost the staged-pipelined norms.

Usage: python3 patch.py TREE nocluster|noreduce"""
import pathlib
import sys

tree, mode = pathlib.Path(sys.argv[1]), sys.argv[2]
group = tree / "kernels/include/epl/row/group.cuh"
s = group.read_text()
old = "    s = block_.all_reduce(s, merge);\n    join();\n    const int k = count_++;"
assert s.count(old) == 1
cut = {"nocluster": "    s = block_.all_reduce(s, merge);\n    join();\n    if (count_ >= 0) return s;\n    const int k = count_++;",
       "noreduce": "    join();\n    if (count_ >= 0) return s;\n    s = block_.all_reduce(s, merge);\n    const int k = count_++;"}[mode]
group.write_text(s.replace(old, cut))
print(f"patched {tree} ({mode})")
