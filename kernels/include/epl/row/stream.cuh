// epl/row/stream.cuh — row operators with one value out per row: the row is streamed once through
// an online fold, never held, so any row length is in the domain.
//
// Records: catalog/realizations/{logsumexp,cross-entropy}/.
//
// rows_to_values<Group, UNROLL>(op, x, out, rows, cols): every thread of the row's group folds its
// share of the row's segment online (visit_row_segment's loop: every LANES-th 16-byte vector,
// UNROLL loads in flight, epl/row/visit.cuh through fold_row_softmax_state), the group all-reduces
// the states (epl/row/group.cuh), and the row's leader writes out[row] = op.finish(state, row, ahead),
// where ahead = op.ahead(row) is what the op reads of the row before the fold (Ahead: nothing, or a
// value the leader's load brings in under the fold's, held in a register through it).
// Ops here finish the softmax state (m, l): logsumexp = m + log l; cross-entropy = m + log l - x[t].
#pragma once

#include "group.cuh"
#include "softmax_state.cuh"

namespace epl {

// log(sum_j exp(x_j)) = m + log(l); an all -inf row gives -inf (m = -inf, l = 0).
__device__ __forceinline__ float logsumexp_of(const SoftmaxState& s) {
  return s.l > 0.0f ? s.m + logf(s.l) : softmax_neg_inf();
}

template <typename Group, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void rows_to_values(Op op, const T* __restrict__ x, float* __restrict__ out, int rows,
                                               int cols) {
  __shared__ typename Group::TempStorage temp;
  Group group(temp);
  const int row = group.row();
  const bool has_row = row < rows;
  const RowSegment seg = group.template segment<T>(cols);
  const T* xs = x + static_cast<size_t>(has_row ? row : 0) * static_cast<size_t>(cols) + seg.begin;
  const typename Op::Ahead ahead = op.ahead(has_row && group.leader(), row);
  SoftmaxState s = fold_row_softmax_state<Group::LANES, UNROLL>(xs, has_row ? seg.n : 0, group.lane(),
                                                                rows_are_vector_aligned(x, cols));
  s = group.all_reduce(s, MergeSoftmaxState{});  // every thread of the row holds the same bits
  if (has_row && group.leader()) out[row] = op.finish(s, row, ahead);
}

// out[r] = logsumexp(x[r, :]).
struct LogSumExpValue {
  struct Ahead {};
  __device__ __forceinline__ Ahead ahead(bool, int) const { return {}; }
  __device__ __forceinline__ float finish(const SoftmaxState& s, int, Ahead) const { return logsumexp_of(s); }
};

// out[r] = logsumexp(x[r, :]) - x[r, target[r]] (the loss of one row, reduction none), formed as
// (m - x_t) + log l: m - x_t is exact when the logits are large and close (Sterbenz), where
// rounding m + log l first (about 1e4 in an offset row) loses half an ulp of 1e4 in a loss of
// about 10. The target logit is two dependent loads (target[r], then x[r, t]), by the leader only.
// AHEAD = false: after the all-reduce (a line the fold has just read), where the block waits for
// both round trips before it exits.
// AHEAD = true: before the fold, where they run under the fold's loads, but x_t then holds one
// register in every thread through the fold (a cost where the fold sits at a residency threshold).
template <typename T, bool AHEAD = false>
struct CrossEntropyValue {
  const T* __restrict__ x;
  const long long* __restrict__ target;
  int cols;
  struct Ahead {
    float x_t;  // AHEAD only; a constant otherwise, which holds no register
  };
  __device__ __forceinline__ float target_logit(int row) const {
    return to_float(x[static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(target[row])]);
  }
  __device__ __forceinline__ Ahead ahead(bool leads, int row) const {
    if constexpr (AHEAD) {
      return {leads ? target_logit(row) : 0.0f};
    } else {
      return {0.0f};
    }
  }
  __device__ __forceinline__ float finish(const SoftmaxState& s, int row, Ahead a) const {
    const float x_t = AHEAD ? a.x_t : target_logit(row);
    return (s.m - x_t) + logf(s.l);  // a row with a finite target logit has l >= exp(x_t - m) > 0
  }
};

}  // namespace epl
