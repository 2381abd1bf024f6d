// epl/row/two_pass_streamed.cuh — a statistics policy for rows_reread / rows_staged: layernorm's
// mean and variance by two plain passes over the group's segment, each closed by an all-reduce.
//
// Record: catalog/realizations/layernorm/two-pass-staged.yaml.
//
// Meant for a segment the passes can reread cheaply, one staged in shared memory: the sum, an
// all-reduce, the squared deviations about the row's mean over the same segment, a second
// all-reduce. Against LayerNormWelford (reread.cuh) a round costs one FADD an element and then one
// FADD and one FFMA, not a chunk's moments and a Chan merge with its division, and the variance is
// summed about the exact mean, not about a pivot. Since RowCluster exchanges on mbarriers, a second
// cluster all-reduce costs one remote store per peer and one wait, no fence
// (explorations/20261205-layernorm-staged-two-pass: bf16 +5-22% over the Welford fold, fp32 level).
// It sits apart from reread.cuh's policies only so that adding it left their source hashes, and
// the evidence measured on them, untouched; fold it in with the next change to reread.cuh.
#pragma once

#include "reread.cuh"

namespace epl {

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

}  // namespace epl
