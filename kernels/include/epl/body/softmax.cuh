// epl/body/softmax.cuh — the softmax of the rows of a row-major [rows, cols] matrix, y = exp(x - m) / l.
//
// Record:  catalog/realizations/softmax/online-block-reread.yaml
//          (operator softmax, contract row-softmax).
//
// Composed from the verified online-max-accumulation pieces, none copied: the (m, l) state, its
// -inf-guarded merge and chunk fold (thread/softmax_state.cuh), the row fold and its 16-byte load
// loop (body/softmax_state.cuh, group/visit.cuh), the warp and block all-reduces of a state
// (warp/reduce_state.cuh, block/reduce_state.cuh). What is new here is the normalize stage
// (elementwise-chain-fusion): y = exp_flush(x - shift) * (1 / l), rounded to T once at the store, with
// the same exponential and shift the state was folded with, so the written row sums to l / l.
// Convention: an all -inf row (m = -inf, l = 0) is written as zeros (1 / l is taken as 0), never
// NaN; a -inf element gives exactly 0. Inputs must not hold +inf or NaN.
#pragma once

#include "../block/reduce_state.cuh"
#include "../group/fold.cuh"
#include "../group/rewrite.cuh"
#include "../group/share.cuh"  // RowPath
#include "../thread/softmax_state.cuh"
#include "softmax_state.cuh"

namespace epl {

// Both x and y can take 16-byte vectors: 16-byte aligned bases and cols a multiple of 16 / sizeof(T).
template <typename T>
__device__ __forceinline__ bool rows_are_vector_aligned(const T* x, const T* y, int cols) {
  return rows_are_vector_aligned(x, cols) && (reinterpret_cast<size_t>(y) & 15) == 0;
}

// The normalize pass over a row segment that is NOT held in registers: rewrite_row_segment rereads
// the vectors the fold read (from L2 while the row stayed there) and writes exp(x - shift) / l as
// T. SPLIT: the vector path splits by address (seg and out at one offset mod 16, group/walk.cuh).
// Cost: one more read and one write of the segment.
template <int LANES, int UNROLL, typename T, bool SPLIT = false>
__device__ __forceinline__ void write_row_softmax(const T* __restrict__ seg, T* __restrict__ out, int n, int lane,
                                                  bool vector_path, float shift, float inv_l) {
  const SoftmaxStreamRow op;
  const SoftmaxStreamRow::Row r{shift, inv_l};
  rewrite_row_segment<SegmentWalk<LANES, UNROLL, Evict::kNone, 0, SPLIT>, 0>(seg, static_cast<const T*>(nullptr), static_cast<const T*>(nullptr), out, n,
                                        lane, vector_path, [op, r](float x, float, float) { return op.apply(x, r, 0.0f, 0.0f); });
}

// Body of a kernel with one row per block, any length: thread t folds every BLOCK-th vector online
// (fold_row_softmax_state, one read), BlockAllReduceState merges the BLOCK states (one
// __syncthreads; every thread gets the same bits), then write_row_softmax rereads the same vectors
// (from L2 while the row stayed there) and writes y: two reads and one write of the row.
// Launch: blockDim.x == BLOCK (a power of two in [32, 1024]), gridDim.x == rows.
// PATH: kAnyPath, 16-byte vectors where x and y are aligned and cols whole vectors, element loads
// otherwise; kSplitPath, the rows split by address where x and y sit at one offset mod 16
// (group/walk.cuh: any cols), element loads otherwise.
template <int BLOCK, int UNROLL, typename T, RowPath PATH = kAnyPath>
__device__ __forceinline__ void row_softmax_block_reread(const T* __restrict__ x,  // rows x cols
                                                         T* __restrict__ y,        // rows x cols
                                                         int cols) {
  using Reduce = BlockAllReduceState<BLOCK, SoftmaxState>;
  __shared__ typename Reduce::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const int t = static_cast<int>(threadIdx.x);
  const T* xr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  T* yr = y + static_cast<size_t>(row) * static_cast<size_t>(cols);
  constexpr bool SPLIT = PATH == kSplitPath;
  const bool vector_path = SPLIT ? row_arrays_split_aligned(x, y) : rows_are_vector_aligned(x, y, cols);
  SoftmaxState s = fold_row_softmax_state<SegmentWalk<BLOCK, UNROLL, Evict::kNone, 0, SPLIT>>(xr, cols, t, vector_path);
  s = Reduce(temp).all_reduce(s, MergeSoftmaxState{});
  write_row_softmax<BLOCK, UNROLL, T, SPLIT>(xr, yr, cols, t, vector_path, softmax_shift(s.m), softmax_inv_l(s.l));
}

}  // namespace epl
