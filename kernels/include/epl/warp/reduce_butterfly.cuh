// epl/warp/reduce_butterfly.cuh — warp reduction by an xor butterfly; result in every lane.
#pragma once

#include "../util.cuh"

namespace epl {

// Reduces v over each group of WIDTH consecutive lanes (WIDTH a power of two, 1..32; the default
// is the whole warp). Every one of the 32 lanes of the warp must call it, converged.
//
// Valid result: in EVERY lane of the group, with identical bits in all of them, because each
// step combines the same two values in every lane pair and the epl operators are bitwise
// commutative (op(a, b) == op(b, a)).
// Cost: log2(WIDTH) SHFL.BFLY + log2(WIDTH) op — the same count as the shuffle-down tree; use it
// whenever more than lane 0 needs the answer (saves the broadcast).
template <int WIDTH = kWarpThreads, typename Op>
__device__ __forceinline__ float warp_reduce_butterfly(float v, Op op) {
  static_assert(is_pow2(WIDTH) && WIDTH <= kWarpThreads, "WIDTH must be a power of two <= 32");
#pragma unroll
  for (int mask = WIDTH / 2; mask > 0; mask /= 2) {
    v = op(v, __shfl_xor_sync(kFullWarpMask, v, mask, WIDTH));
  }
  return v;
}

}  // namespace epl
