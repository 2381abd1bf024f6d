// epl/device/reduce_partials.cuh — one block reduces m float32 partials to the single result.
//
// The second level of every device-wide reduction that keeps one partial per block (or per
// cluster): the finish kernel of a two-pass plan, and the last block of a last-block-done plan.
// Thread t folds partials with 16-byte loads (fold_vec16 with parts = 1), the block reduces the
// folds with two levels of warp shuffles (block/reduce_warp_shuffle.cuh), thread 0 writes out[0].
#pragma once

#include "../block/reduce_warp_shuffle.cuh"
#include "fold_vec16.cuh"

namespace epl {
namespace device {

// Every thread of the block calls it, converged. Order of operations is fixed by (m, BLOCK, UNROLL):
// bitwise reproducible. Cost: 4*m bytes read by ONE block (about 16 * UNROLL * BLOCK bytes in
// flight, so m of a few thousand costs one memory round trip, m of 10^5 several), one barrier.
// Load: LoadReadOnly when the partials come from an earlier launch, LoadCoherentL2 when other
// blocks of this launch wrote them. partials must be 4-byte aligned (16 for the fast path).
template <int BLOCK, typename Op, typename Load = LoadReadOnly, int UNROLL = 4>
__device__ __forceinline__ void reduce_partials_block(const float* partials,  // m partials (may be written by this launch)
                                                      unsigned m,                         // count
                                                      float* __restrict__ out,            // 1 result
                                                      Op op = Op()) {
  using BlockReduce = BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float acc = fold_vec16<BLOCK, UNROLL, float, Op, Load>(partials, m, 0u, 1u, op);
  const float r = BlockReduce(temp).reduce(acc, op);  // valid in thread 0
  if (threadIdx.x == 0) out[0] = r;
}

}  // namespace device
}  // namespace epl
