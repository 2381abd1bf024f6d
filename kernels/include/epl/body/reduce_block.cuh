// epl/body/reduce_block.cuh — a row (or a slice of one) reduced by a whole block.
//
// Records: catalog/realizations/segmented-row-reduce/block-per-row.yaml (one block per row),
//          catalog/realizations/segmented-row-reduce/split-row.yaml (one block per CHUNK-element
//          slice of a row, pass 1 of 2).
//
// All BLOCK threads fold their share of the segment (fold_row_segment, 16-byte loads), then the
// two-level warp-shuffle block reduction (epl/block/reduce_warp_shuffle.cuh: one __syncthreads)
// leaves the value in thread 0.
#pragma once

#include "../block/reduce_warp_shuffle.cuh"
#include "../group/fold.cuh"
#include "../util.cuh"

namespace epl {

// One segment seg[0, n) reduced by all BLOCK threads (blockDim.x == BLOCK), converged.
// Valid result: THREAD 0 only. __syncthreads() before reusing `temp`.
// Cost: n * sizeof(T) / (16 * BLOCK) vector loads per thread, 5 + log2(BLOCK/32) shuffles,
// one __syncthreads, 4 * BLOCK / 32 bytes of shared memory.
template <int BLOCK, int UNROLL, typename T, typename Op>
__device__ __forceinline__ float block_row_reduce(typename BlockReduceWarpShuffle<BLOCK, Op>::TempStorage& temp,
                                                  const T* __restrict__ seg, int n, bool vector_path, Op op) {
  const float partial = fold_row_segment<BLOCK, UNROLL>(seg, n, static_cast<int>(threadIdx.x), vector_path, op);
  return BlockReduceWarpShuffle<BLOCK, Op>(temp).reduce(partial, op);
}

// The body of a row-reduce kernel mapping one row to each block: block b reduces row b and
// thread 0 writes out[b] (float32).
// Launch: blockDim.x == BLOCK, gridDim.x == rows.
// Traffic: rows * cols * sizeof(T) read once, rows * 4 bytes written.
template <int BLOCK, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void row_reduce_blocks(const T* __restrict__ x,  // rows x cols, row-major
                                                  float* __restrict__ out,  // rows
                                                  int cols) {
  __shared__ typename BlockReduceWarpShuffle<BLOCK, Op>::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const T* row_ptr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  const float r = block_row_reduce<BLOCK, UNROLL>(temp, row_ptr, cols, rows_are_vector_aligned(x, cols), Op{});
  if (threadIdx.x == 0) out[row] = r;
}

// Pass 1 of a split-row reduction: each row is cut into splits = ceil_div(cols, CHUNK) slices of
// CHUNK elements (the last one ragged); block b reduces slice b % splits of row b / splits and
// thread 0 writes partials[b] (float32, row-major [rows, splits]). Pass 2 reduces each row of
// partials (row_reduce_lane_groups over [rows, splits] floats).
// Launch: blockDim.x == BLOCK, gridDim.x == rows * splits.
// Traffic: rows * cols * sizeof(T) read once, rows * splits * 4 bytes written (and read again by
// pass 2): 4 / (CHUNK * sizeof(T)) of the input, 0.01% at CHUNK = 8192 fp32.
template <int BLOCK, int CHUNK, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void row_reduce_split_partials(const T* __restrict__ x,       // rows x cols
                                                          float* __restrict__ partials,  // rows x splits
                                                          int cols) {
  static_assert(CHUNK % 8 == 0, "CHUNK must keep 16-byte alignment for every element size up to 2 bytes");
  __shared__ typename BlockReduceWarpShuffle<BLOCK, Op>::TempStorage temp;
  const int splits = ceil_div(cols, CHUNK);
  const int row = static_cast<int>(blockIdx.x) / splits;
  const int begin = (static_cast<int>(blockIdx.x) - row * splits) * CHUNK;
  const T* seg = x + static_cast<size_t>(row) * static_cast<size_t>(cols) + begin;
  const int n = min(CHUNK, cols - begin);
  const float r = block_row_reduce<BLOCK, UNROLL>(temp, seg, n, rows_are_vector_aligned(x, cols), Op{});
  if (threadIdx.x == 0) partials[blockIdx.x] = r;
}

}  // namespace epl
