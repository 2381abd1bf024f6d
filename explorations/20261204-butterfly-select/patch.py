"""Patch a tree copy's epl/warp/reduce_state.cuh: each butterfly step selects the (lower, upper)
operands first and merges once, instead of `(lane & mask) ? merge(other, s) : merge(s, other)`.
Same merge, same order, same bits; with exp_flush's inline asm in the (m, l) merge, the two-call
form compiles to two branched copies of the merge, each taken by half the warp.
With 'maxfirst' also: epl/row/softmax_state.cuh's round_max becomes widen_round_max, which widens
the round and returns its max, and whose bf16 overload takes the packed max BEFORE widening (then
bf16 logsumexp/online-stream at group 8 x unroll 4 compiles to 40 registers, not 48: the order of
the two in the source decides the live ranges ptxas ends with).
Usage: python3 patch.py TREE [maxfirst]"""
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

if "maxfirst" in sys.argv[2:]:
    q = pathlib.Path(sys.argv[1]) / "kernels/include/epl/row/softmax_state.cuh"
    t = q.read_text()
    reps = [
        ("""template <typename T, int U>
__device__ __forceinline__ float round_max(const Vec16<T> (&)[U], const float (&c)[U * Vec16<T>::N]) {
  return softmax_max_chunk(c);
}""", """template <typename T, int U>
__device__ __forceinline__ float widen_round_max(const Vec16<T> (&v)[U], float (&c)[U * Vec16<T>::N]) {
  widen_round(v, c);
  return softmax_max_chunk(c);
}"""),
        ("""__device__ __forceinline__ float round_max(const Vec16<__nv_bfloat16> (&v)[U], const float (&)[U * 8]) {""",
         """__device__ __forceinline__ float widen_round_max(const Vec16<__nv_bfloat16> (&v)[U], float (&c)[U * 8]) {"""),
        ("""  return fmaxf(__low2float(t[0]), __high2float(t[0]));
}""", """  const float m = fmaxf(__low2float(t[0]), __high2float(t[0]));
  widen_round(v, c);
  return m;
}"""),
        ("""    widen_round(v, c);
    s = softmax_state_fold_chunk(s, c, round_max(v, c));""", """    const float chunk_max = widen_round_max(v, c);
    s = softmax_state_fold_chunk(s, c, chunk_max);"""),
        ("""    widen_round(v, c);
    m = fmaxf(m, round_max(v, c));""", """    m = fmaxf(m, widen_round_max(v, c));"""),
    ]
    for a, b in reps:
        assert t.count(a) == 1, a
        t = t.replace(a, b)
    q.write_text(t)
