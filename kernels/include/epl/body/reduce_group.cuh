// epl/body/reduce_group.cuh — rows reduced by aligned groups of GROUP lanes (GROUP <= 32).
//
// Records: catalog/realizations/segmented-row-reduce/warp-per-row.yaml (GROUP = 32) and
//          catalog/realizations/segmented-row-reduce/rows-per-block.yaml (GROUP = 4, 8, 16);
//          the finish pass of split-row reduces its partials with GROUP = 32.
//
// A group of GROUP consecutive lanes of one warp owns one row: each lane folds its share
// (fold_row_segment, 16-byte loads), then a shuffle-down tree restricted to the group
// (warp_reduce_shfl_down<GROUP>) leaves the row's value in the group's first lane. No shared
// memory and no barrier: a row costs log2(GROUP) shuffles on top of its loads.
#pragma once

#include "../group/fold.cuh"
#include "../util.cuh"
#include "../warp/reduce_shfl_down.cuh"

namespace epl {

// One row per group of GROUP lanes. Every one of the 32 lanes of the warp must call it,
// converged (the shuffles name the whole warp): a group without a row passes n = 0 and gets
// identity(). Valid result: in the FIRST LANE of each group only.
// Cost: the group's loads (n * sizeof(T) / (16 * GROUP) vectors per lane) + log2(GROUP) SHFL.DOWN.
template <int GROUP, int UNROLL, typename T, typename Op>
__device__ __forceinline__ float group_row_reduce(const T* __restrict__ row, int n, bool vector_path, Op op) {
  static_assert(is_pow2(GROUP) && GROUP <= kWarpThreads, "GROUP must be a power of two <= 32");
  const int lane = lane_id() & (GROUP - 1);
  const float partial = fold_row_segment<GROUP, UNROLL>(row, n, lane, vector_path, op);
  return warp_reduce_shfl_down<GROUP>(partial, op);
}

// The body of a row-reduce kernel mapping one row to each group of GROUP lanes:
// block b reduces rows [b * BLOCK/GROUP, (b+1) * BLOCK/GROUP) ∩ [0, rows), and writes out[row]
// (float32) from each group's first lane.
// Launch: blockDim.x == BLOCK, gridDim.x == ceil_div(rows, BLOCK / GROUP).
// Traffic: rows * cols * sizeof(T) read once, rows * 4 bytes written.
template <int GROUP, int BLOCK, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void row_reduce_lane_groups(const T* __restrict__ x,    // rows x cols, row-major
                                                       float* __restrict__ out,    // rows
                                                       int rows, int cols) {
  static_assert(BLOCK % kWarpThreads == 0 && BLOCK >= GROUP, "BLOCK must be whole warps");
  constexpr int ROWS_PER_BLOCK = BLOCK / GROUP;
  const Op op{};
  const int row = static_cast<int>(blockIdx.x) * ROWS_PER_BLOCK + static_cast<int>(threadIdx.x) / GROUP;
  const bool has_row = row < rows;
  const T* row_ptr = x + static_cast<size_t>(has_row ? row : 0) * static_cast<size_t>(cols);
  // Groups past the last row still take part in the shuffles, with nothing to fold.
  const float r = group_row_reduce<GROUP, UNROLL>(row_ptr, has_row ? cols : 0, rows_are_vector_aligned(x, cols), op);
  if (has_row && (static_cast<int>(threadIdx.x) & (GROUP - 1)) == 0) out[row] = r;
}

}  // namespace epl
