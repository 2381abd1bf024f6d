// epl/warp/reduce_shfl_down.cuh — warp reduction by a shuffle-down tree; result in lane 0.
#pragma once

#include "../util.cuh"

namespace epl {

// Reduces v over each group of WIDTH consecutive lanes (WIDTH a power of two, 1..32; the default
// is the whole warp). Every one of the 32 lanes of the warp must call it, converged.
//
// Valid result: ONLY in the first lane of each group (lane 0 for WIDTH = 32). Other lanes hold
// partial trees and must not use their value.
// Cost: log2(WIDTH) SHFL.DOWN + log2(WIDTH) op, no shared memory, no barrier.
// Order: lane 0 combines (((v0 op v16) op (v8 op v24)) ...) — fixed, so bitwise reproducible.
template <int WIDTH = kWarpThreads, typename Op>
__device__ __forceinline__ float warp_reduce_shfl_down(float v, Op op) {
  static_assert(is_pow2(WIDTH) && WIDTH <= kWarpThreads, "WIDTH must be a power of two <= 32");
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) {
    // width = WIDTH keeps the source inside the group; lanes near its end read their own value.
    v = op(v, __shfl_down_sync(kFullWarpMask, v, offset, WIDTH));
  }
  return v;
}

}  // namespace epl
