"""Patch a tree copy (not evidence, wrong outputs on purpose): where the rewrite of a row operator
reads its per-column parameters (weight, bias) from. rewrite.cuh's apply_vec16 loads the parameter
vectors at the element's own column c0, so each row streams the parameters' whole slice from L2
again. The variants:
  window  the vectors at c0 modulo a 16 KiB window (4 Ki fp32 or 8 Ki bf16 elements): every block
          rereads the same few lines, which stay in L1; the loads, their count and their
          dependence on the statistics are unchanged;
  none    no parameter load (both read as 0): the rewrite's cost without them.
Usage: python3 patch.py TREE window|none"""
import pathlib
import sys

tree, variant = pathlib.Path(sys.argv[1]), sys.argv[2]
p = tree / "kernels/include/epl/row/rewrite.cuh"
s = p.read_text()
old = """  if constexpr (P >= 1) a = load_16B_aligned(p0 + c0);
  if constexpr (P >= 2) b = load_16B_aligned(p1 + c0);"""
assert s.count(old) == 1
if variant == "window":
    new = """  const int w = c0 & (16384 / static_cast<int>(sizeof(T)) - 1);
  if constexpr (P >= 1) a = load_16B_aligned(p0 + w);
  if constexpr (P >= 2) b = load_16B_aligned(p1 + w);"""
elif variant == "none":
    new = """  a = Vec16<T>{};
  b = Vec16<T>{};"""
else:
    sys.exit(f"unknown variant {variant!r}")
p.write_text(s.replace(old, new))
