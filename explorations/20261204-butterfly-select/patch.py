"""Patch a tree copy's epl/warp/reduce_state.cuh: each butterfly step selects the (lower, upper)
operands first and merges once, instead of `(lane & mask) ? merge(other, s) : merge(s, other)`.
Same merge, same order, same bits; with exp_flush's inline asm in the (m, l) merge, the two-call
form compiles to two branched copies of the merge, each taken by half the warp.
Usage: python3 patch.py TREE"""
import pathlib
import sys

p = pathlib.Path(sys.argv[1]) / "kernels/include/epl/warp/reduce_state.cuh"
s = p.read_text()
old = "    s = (lane & mask) ? merge(other, s) : merge(s, other);  // lower lane's state first, in both lanes\n"
assert s.count(old) == 1
p.write_text(s.replace(old, """    const bool upper = (lane & mask) != 0;  // operands chosen by select, so the merge is one straight-line copy
    const State lower_state = upper ? other : s;
    const State upper_state = upper ? s : other;
    s = merge(lower_state, upper_state);  // lower lane's state first, in both lanes
"""))
