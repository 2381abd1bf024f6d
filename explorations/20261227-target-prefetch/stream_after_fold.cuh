// epl/row/stream.cuh — row operators with one value out per row: the row is streamed once through
// an online fold, never held, so any row length is in the domain.
//
// Records: catalog/realizations/{logsumexp,cross-entropy}/.
//
// rows_to_values<Group, UNROLL>(op, x, out, rows, cols): every thread of the row's group folds its
// share of the row's segment online (visit_row_segment's loop: every LANES-th 16-byte vector,
// UNROLL loads in flight, epl/row/visit.cuh through fold_row_softmax_state), the group all-reduces
// the states (epl/row/group.cuh), and the row's leader writes out[row] = op.finish(state, extra).
// What the op reads besides the row (op.extra: cross-entropy's target logit) the leader asks L2 for
// before the fold (op.warm, no register) and loads between the fold and the all-reduce, so its
// round trips run under the all-reduce's rather than after it, at the end of every row's block,
// and it holds no register through the fold (loaded before the fold it cost ptxas 1-11 registers
// and some points a block an SM: explorations/20261227-target-prefetch).
// Ops here finish the softmax state (m, l): logsumexp = m + log l; cross-entropy = m + log l - x[t].
#pragma once

#include "group.cuh"
#include "softmax_state.cuh"

namespace epl {

// One thread's 8-byte asynchronous copy from global to shared memory (cp.async, sm_80+), and its
// wait for every such copy it has issued.
__device__ __forceinline__ void copy_async_8(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src));  // no "memory" clobber: it must not order the fold's loads
}
__device__ __forceinline__ void copy_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// log(sum_j exp(x_j)) = m + log(l); an all -inf row gives -inf (m = -inf, l = 0).
__device__ __forceinline__ float logsumexp_of(const SoftmaxState& s) {
  return s.l > 0.0f ? s.m + logf(s.l) : softmax_neg_inf();
}

template <typename Group, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void rows_to_values(Op op, const T* __restrict__ x, float* __restrict__ out, int rows,
                                               int cols) {
  __shared__ typename Group::TempStorage temp;
  __shared__ typename Op::Slot slots[Group::ROWS_PER_BLOCK];  // what op.warm fetches for each row of the block
  Group group(temp);
  const int row = group.row();
  const bool has_row = row < rows;
  const RowSegment seg = group.template segment<T>(cols);
  typename Op::Slot& slot = slots[static_cast<int>(threadIdx.x) / Group::LANES % Group::ROWS_PER_BLOCK];
  const T* xs = x + static_cast<size_t>(has_row ? row : 0) * static_cast<size_t>(cols) + seg.begin;
  SoftmaxState s = fold_row_softmax_state<Group::LANES, UNROLL>(xs, has_row ? seg.n : 0, group.lane(),
                                                                rows_are_vector_aligned(x, cols));
  const bool leads = has_row && group.leader();
  const float extra = leads ? op.extra(row, slot) : 0.0f;
  s = group.all_reduce(s, MergeSoftmaxState{});  // every thread of the row holds the same bits
  if (leads) out[row] = op.finish(s, extra);
}

// out[r] = logsumexp(x[r, :]).
struct LogSumExpValue {
  struct Slot {};  // reads nothing besides the row
  __device__ __forceinline__ void warm(int, Slot&) const {}
  __device__ __forceinline__ float extra(int, Slot&) const { return 0.0f; }
  __device__ __forceinline__ float finish(const SoftmaxState& s, float) const { return logsumexp_of(s); }
};

// out[r] = logsumexp(x[r, :]) - x[r, target[r]] (the loss of one row, reduction none), formed as
// (m - x_t) + log l: m - x_t is exact when the logits are large and close (Sterbenz), where
// rounding m + log l first (about 1e4 in an offset row) loses half an ulp of 1e4 in a loss of
// about 10. The target logit is two dependent loads, target[r] (warmed into L2 before the fold),
// then x[r, t] (a line the fold has just read), by the leader only.
template <typename T>
struct CrossEntropyValue {
  const T* __restrict__ x;
  const long long* __restrict__ target;
  int cols;
  struct Slot {
    long long t;
  };
  // target[row] into the row's slot by an asynchronous copy: no register waits for it, so the
  // leader's warp folds on while it flies
  __device__ __forceinline__ void warm(int row, Slot& slot) const {}
  __device__ __forceinline__ float extra(int row, Slot& slot) const {  // x[row, target[row]]
    return to_float(x[static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(target[row])]);
  }
  __device__ __forceinline__ float finish(const SoftmaxState& s, float x_t) const {
    return (s.m - x_t) + logf(s.l);  // a row with a finite target logit has l >= exp(x_t - m) > 0
  }
};

}  // namespace epl
