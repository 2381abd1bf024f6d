// epl/row/staged_pipelined.cuh — EXPLORATION (explorations/20261201-staged-pipelined): the staged
// row body of epl/row/staged.cuh over a persistent grid, two segment buffers a block, the next row's
// bulk copies in flight while the current row is folded and rewritten.
//
// Question it answers: at 128x262144 the staged rows stay at 0.65 of copy whether a block holds 128
// KiB (one an SM) or 64 KiB (three an SM); a block that stages one row and exits leaves HBM idle
// from its last copy landing to its next block's first. Here a block (a cluster) never waits for a
// copy it could have issued a row earlier.
#pragma once

#include "staged.cuh"

namespace epl {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// Group: RowStagers<CLUSTER, BLOCK>::Group. Launch: blockDim.x == BLOCK; gridDim.x a multiple of
// CLUSTER, at most rows * CLUSTER (group g of G = gridDim.x / CLUSTER takes rows g, g + G, ...);
// dynamic shared memory >= 2 * row_staged_bytes<T>(cols, CLUSTER). Rows that are not 16-byte
// aligned (or parameters) take the element path: each row copied element by element into one
// buffer, nothing prefetched.
template <typename Group, int CLUSTER, int UNROLL, typename T, typename Stats>
__device__ __forceinline__ void rows_staged_pipelined(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                                      const T* __restrict__ p1, T* __restrict__ y, int rows,
                                                      int cols) {
  static_assert(Group::ROWS_PER_BLOCK == 1, "a staged row (or slice) needs the whole block");
  extern __shared__ __align__(16) unsigned char row_stage[];
  __shared__ typename Group::TempStorage temp;
  __shared__ BulkBarrier landed[2];
  Group group(temp);
  const int lane = group.lane();
  const RowSegment seg = group.template segment<T>(cols);
  const int seg_elems = row_staged_bytes<T>(cols, CLUSTER) / static_cast<int>(sizeof(T));
  T* const staged = reinterpret_cast<T*>(row_stage);
  auto stage = [&](int b) { return staged + (b ? seg_elems : 0); };  // no array: it would go to the stack
  const int first = static_cast<int>(blockIdx.x) / CLUSTER;
  const int stride = static_cast<int>(gridDim.x) / CLUSTER;
  const unsigned bytes = static_cast<unsigned>(seg.n) * sizeof(T);
  const bool vector_path = row_arrays_vector_aligned(x, y, p0, p1, cols);
  auto src = [&](int row) { return x + static_cast<size_t>(row) * static_cast<size_t>(cols) + seg.begin; };
  if (threadIdx.x == 0) {
    bulk_barrier_init(landed[0]);
    bulk_barrier_init(landed[1]);
  }
  __syncthreads();
  if (vector_path && threadIdx.x < kWarpThreads && first < rows) {
    bulk_copy_to_shared(stage(0), src(first), bytes, landed[0]);
  }
  int i = 0;
  for (int row = first; row < rows; row += stride, ++i) {
    const int buf = vector_path ? i & 1 : 0;
    if (vector_path) {
      // The other buffer was last read in the previous row, which every thread has left (the
      // barrier at the end of the loop), so its refill may start now.
      if (threadIdx.x < kWarpThreads && row + stride < rows) {
        bulk_copy_to_shared(stage(buf ^ 1), src(row + stride), bytes, landed[buf ^ 1]);
      }
      bulk_wait(landed[buf], static_cast<unsigned>(i >> 1) & 1u);
    } else {
      const T* s = src(row);
      for (int j = lane; j < seg.n; j += Group::LANES) stage(0)[j] = s[j];
      __syncthreads();
    }
    const size_t base = static_cast<size_t>(row) * static_cast<size_t>(cols);
    const auto constants = stats.template stats<Group::LANES, UNROLL, 0, L1Evict::kShared>(
        x + base, stage(buf), seg.n, lane, vector_path, group, cols);
    const auto op = stats.op;
    rewrite_row_segment<Group::LANES, UNROLL, Stats::Op::kParams, L1Evict::kShared>(
        stage(buf), p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1, y + base + seg.begin, seg.n, lane, vector_path,
        [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
    __syncthreads();
  }
}

#endif  // __CUDA_ARCH__ >= 900

}  // namespace epl
