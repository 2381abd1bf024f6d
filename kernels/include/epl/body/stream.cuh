// epl/body/stream.cuh — row operators with one value out per row: the row is streamed once through
// an online fold, never held, so any row length is in the domain.
//
// Records: catalog/realizations/{logsumexp,cross-entropy}/.
//
// rows_to_values<Group, UNROLL>(op, x, out, rows, cols): every thread of the row's group folds its
// share of the row's segment online (visit_row_segment's loop: every LANES-th 16-byte vector,
// UNROLL loads in flight, epl/group/visit.cuh through fold_row_softmax_state), the group all-reduces
// the states (epl/group/lanes.cuh), and the row's leader writes out[row] = op.finish(state, row, ahead),
// where ahead = op.ahead(row) is what the op reads of the row before the fold (Ahead: nothing, or a
// value the leader's load brings in under the fold's, held in a register through it).
// Ops here finish the softmax state (m, l): logsumexp = m + log l; cross-entropy = m + log l - x[t].
#pragma once

#include "../group/lanes.cuh"
#include "../group/share.cuh"  // RowPath
#include "softmax_state.cuh"

namespace epl {

// PATH: kAnyPath, 16-byte vectors where x is aligned and cols whole vectors, element loads
// otherwise; kSplitPath, every row split by address (group/walk.cuh: a fold reads x alone, so any
// x and any cols take the vector path), at the price of the registers the split holds.
template <typename Group, int UNROLL, typename T, RowPath PATH = kAnyPath, typename Op>
__device__ __forceinline__ void rows_to_values(Op op, const T* __restrict__ x, float* __restrict__ out, int rows,
                                               int cols) {
  __shared__ typename Group::TempStorage temp;
  Group group(temp);
  const int row = group.row();
  const bool has_row = row < rows;
  const RowSegment seg = group.template segment<T>(cols);
  const T* xs = x + static_cast<size_t>(has_row ? row : 0) * static_cast<size_t>(cols) + seg.begin;
  const typename Op::Ahead ahead = op.ahead(has_row && group.leader(), row);
  constexpr bool SPLIT = PATH == kSplitPath;
  SoftmaxState s = fold_row_softmax_state<SegmentWalk<Group::LANES, UNROLL, Evict::kNone, 0, SPLIT>>(
      xs, has_row ? seg.n : 0, group.lane(), SPLIT || rows_are_vector_aligned(x, cols));
  s = group.all_reduce(s, MergeSoftmaxState{});  // every thread of the row holds the same bits
  if (has_row && group.leader()) out[row] = op.finish(s, row, ahead);
}

}  // namespace epl
