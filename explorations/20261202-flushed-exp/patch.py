"""Patch a tree copy's epl/thread/softmax_state.cuh: the state's exponentials (the per-element exps
of a chunk, the chunk's rescale and the merge) through ex2.approx.ftz instead of __expf, whose
non-flushing form adds a range test and two predicated multiplies per exponential."""
import pathlib
import sys

p = pathlib.Path(sys.argv[1]) / "kernels/include/epl/thread/softmax_state.cuh"
s = p.read_text()
helper = """// exp(x) for the state's sums: ex2.approx.ftz, whose results below 2^-126 flush to 0. Each such
// term is < 2^-126 against a state sum >= 1 (the max contributes exp(0)).
__device__ __forceinline__ float softmax_exp(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504088896341f));
  return y;
}

"""
s = s.replace("struct SoftmaxState {", helper + "struct SoftmaxState {", 1)
for old in ("__expf(a.m - shift)", "__expf(b.m - shift)", "__expf(v[i] - shift)", "__expf(s.m - shift)"):
    assert old in s, old
    s = s.replace(old, old.replace("__expf", "softmax_exp"))
p.write_text(s)
