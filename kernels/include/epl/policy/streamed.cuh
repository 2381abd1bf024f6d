// epl/policy/streamed.cuh — the statistics policies of the streamed and staged row bodies
// (epl/body/reread.cuh, epl/body/staged.cuh and their pipelined forms).
//
// Records: catalog/realizations/{rmsnorm/reread,layernorm/welford-reread,log-softmax/online-reread}.yaml
//          and the staged ones.
//
// Each folds the row once with visit_row_segment (epl/group/visit.cuh) and returns the Row of its
// epl/policy/ops.cuh operator, whose apply the body writes every element with: the per-element
// expression is the register realizations', unchanged.
//   RmsNormStreamed        sum x^2 (the squared-deviation visitor about 0: x - 0 is exact).
//   LogSoftmaxStreamed     the online (m, l) fold of online-max-accumulation (SoftmaxStreamed:
//                          the same fold, written as softmax).
//   LayerNormWelford       Welford/Chan of x - x[0] (mergeable-statistics/welford-chan with its
//                          shift: exact centring on the row's first element, then (count, mean, M2)).
//   LayerNormTwoPassStreamed  the sum, an all-reduce, the squared deviations about the row's mean,
//                          a second all-reduce: two visits of the segment, for one that rereads
//                          cheaply (staged in shared memory: layernorm/two-pass-staged).
#pragma once

#include "../body/moments.cuh"        // the visitors
#include "../body/softmax_state.cuh"  // fold_row_softmax_state
#include "../group/visit.cuh"
#include "../thread/softmax_state.cuh"
#include "ops.cuh"

namespace epl {

// A policy's stats<Walk>(row, seg, n, ...) folds seg[0, n), this group's segment of the row that
// starts at `row` in global memory (all of it for RowLanes, a block's slice for RowCluster; seg
// points into the row, or at the segment staged in shared memory, Walk::kHint kShared), walked as
// the SegmentWalk says (epl/group/walk.cuh), and all-reduces over every thread of the row, so the
// constants are the whole row's.
struct RmsNormStreamed {
  using Op = RmsNormRow;
  Op op;
  template <typename Walk, typename T, typename Group>
  __device__ __forceinline__ Op::Row stats(const T* __restrict__ row, const T* __restrict__ seg, int n, int lane,
                                           bool vector_path, Group& group, int cols) const {
    RowSquaredDeviationVisitor<Walk::kUnroll, T> squares(0.0f);
    visit_row_segment<Walk>(seg, n, lane, vector_path, squares);
    return op.of_sum_squares(group.all_reduce(squares.acc, Sum{}), cols);
  }
};

// The online (m, l) fold, for any Op whose row constants come from the merged state (of_state):
// log-softmax (LogSoftmaxRow) and softmax (SoftmaxStreamRow, epl/body/softmax.cuh).
template <typename RowOp>
struct OnlineSoftmaxStreamed {
  using Op = RowOp;
  Op op;
  template <typename Walk, typename T, typename Group>
  __device__ __forceinline__ typename Op::Row stats(const T* __restrict__ row, const T* __restrict__ seg, int n,
                                                    int lane, bool vector_path, Group& group, int) const {
    return Op::of_state(group.all_reduce(fold_row_softmax_state<Walk>(seg, n, lane, vector_path),
                                         MergeSoftmaxState{}));
  }
};
using LogSoftmaxStreamed = OnlineSoftmaxStreamed<LogSoftmaxRow>;
using SoftmaxStreamed = OnlineSoftmaxStreamed<SoftmaxStreamRow>;

// The Welford states of every segment are shifted by the same pivot, the row's first element, so
// Chan's merge of a cluster's slices combines like quantities.
struct LayerNormWelford {
  using Op = LayerNormRow<LayerNormChan>;
  static constexpr bool kReadsRowHead = true;  // stats reads row[0] alone (ReadsRowHead)
  Op op;
  template <typename Walk, typename T, typename Group>
  __device__ __forceinline__ Op::Row stats(const T* __restrict__ row, const T* __restrict__ seg, int n, int lane,
                                           bool vector_path, Group& group, int) const {
    const float pivot = to_float(row[0]);  // every group's row pointer is a row (cols >= 1)
    RowWelfordVisitor<Walk::kUnroll, T> w(pivot);
    visit_row_segment<Walk>(seg, n, lane, vector_path, w);
    const WelfordState s = group.all_reduce(w.state, ChanMerge{});
    return op.of_moments(s.mean + pivot, div_by_count(s.m2, s.count));
  }
};

// Layernorm's mean and variance by two plain passes over the segment. Against LayerNormWelford a
// round costs one FADD an element (the shifted sum), then one FADD and one FFMA, not a chunk's
// moments and a Chan merge with its division, and the variance is summed about the mean, not about a
// pivot. Only for a segment that rereads cheaply: the second visit reads it again. Staged in shared
// memory, and since RowCluster exchanges on mbarriers, the second cluster all-reduce costs one remote
// store per peer and one wait (experiment 0019-layernorm-staged-two-pass: bf16 +5-22% over the
// Welford fold, fp32 level). The mean is p + E[x - p] about the row's first element p: a constant
// row then sums exact zeros, so mean = p and variance 0 exactly (y = bias bit for bit); the plain
// sum / cols was off by rounding there (relative error 4e-5 to 2.6e-4 in y).
struct LayerNormTwoPassStreamed {
  using Op = LayerNormRow<LayerNormTwoPass>;
  static constexpr bool kReadsRowHead = true;  // stats reads row[0] alone (ReadsRowHead)
  Op op;
  template <typename Walk, typename T, typename Group>
  __device__ __forceinline__ Op::Row stats(const T* __restrict__ row, const T* __restrict__ seg, int n, int lane,
                                           bool vector_path, Group& group, int cols) const {
    const float pivot = to_float(row[0]);  // the row's first element (cols >= 1), global or staged
    RowSumVisitor<Walk::kUnroll, T> sum(pivot);
    visit_row_segment<Walk>(seg, n, lane, vector_path, sum);
    const float mean = pivot + per_element(group.all_reduce(sum.acc, Sum{}), cols);
    RowSquaredDeviationVisitor<Walk::kUnroll, T> squares(mean);
    visit_row_segment<Walk>(seg, n, lane, vector_path, squares);
    return op.of_moments(mean, per_element(group.all_reduce(squares.acc, Sum{}), cols));
  }
};

}  // namespace epl
