"""Patch a tree copy: epl/row/reread.cuh gains LayerNormTwoPassStreamed (the row's sum, an
all-reduce, the sum of squared deviations about the mean over the same segment, a second
all-reduce), and layernorm/welford-staged's entry uses it instead of LayerNormWelford. On a staged
row both passes read shared memory; the Welford fold's per-round chunk moments and Chan merge (a
division a round) become one FADD per element, then one FADD and one FFMA.
Usage: python3 patch.py TREE"""
import pathlib
import sys

tree = pathlib.Path(sys.argv[1])
p = tree / "kernels/include/epl/row/reread.cuh"
s = p.read_text()
anchor = "// The body: one row per group of Group::LANES threads, any length."
assert s.count(anchor) == 1
p.write_text(s.replace(anchor, """// Two passes over the group's segment (for a staged segment, both in shared memory): the sum, an
// all-reduce, the squared deviations about the row's mean, a second all-reduce.
struct LayerNormTwoPassStreamed {
  using Op = LayerNormRow<LayerNormTwoPass>;
  Op op;
  template <int LANES, int UNROLL, int COLS, L1Evict HINT, typename T, typename Group>
  __device__ __forceinline__ Op::Row stats(const T* __restrict__, const T* __restrict__ seg, int n, int lane,
                                           bool vector_path, Group& group, int cols) const {
    RowSumVisitor<UNROLL, T> sum;
    visit_row_segment<LANES, UNROLL, HINT, COLS>(seg, n, lane, vector_path, sum);
    const float mean = per_element(group.all_reduce(sum.acc, Sum{}), cols);
    RowSquaredDeviationVisitor<UNROLL, T> squares(mean);
    visit_row_segment<LANES, UNROLL, HINT, COLS>(seg, n, lane, vector_path, squares);
    return op.of_moments(mean, per_element(group.all_reduce(squares.acc, Sum{}), cols));
  }
};

""" + anchor))
k = tree / "kernels/operators/layernorm/welford-staged.cu"
t = k.read_text()
old = "epl::LayerNormWelford{{eps}}"
assert t.count(old) == 1
k.write_text(t.replace(old, "epl::LayerNormTwoPassStreamed{{eps}}"))
