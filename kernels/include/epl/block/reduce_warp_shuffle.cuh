// epl/block/reduce_warp_shuffle.cuh — block reduction by two levels of warp shuffles.
//
// Record: catalog/realizations/block-reduce/warp-shuffle.yaml
//
// Level 1: every warp reduces its 32 values with a shuffle-down tree; lane 0 stores the warp's
// partial in shared memory. One __syncthreads. Level 2: warp 0 loads the W = BLOCK/32 partials
// (lanes >= W take the identity, so nothing past the W written slots is read) and reduces them
// with a shuffle-down tree of width W. (The same structure as CUB's BLOCK_REDUCE_WARP_REDUCTIONS.)
#pragma once

#include "../util.cuh"
#include "../warp/reduce.cuh"

namespace epl {

// BLOCK: threads in the (1-D) block, a power of two in [32, 1024]; blockDim.x must equal it.
// Op:    an epl operator (thread/ops.cuh).
//
// Cost per call, W = BLOCK / 32 warps:
//   shared memory   4 * W bytes (128: 16 B, 256: 32 B, 1024: 128 B)
//   __syncthreads   1 (0 when BLOCK == 32)
//   shuffles        5 per thread, then log2(W) more in warp 0 (critical path 5 + log2(W))
//   shared traffic  W stores, W loads
template <int BLOCK, typename Op>
class BlockReduceWarpShuffle {
  static_assert(is_pow2(BLOCK) && BLOCK >= kWarpThreads && BLOCK <= 1024,
                "BlockReduceWarpShuffle: BLOCK must be a power of two in [32, 1024]");
  static constexpr int WARPS = BLOCK / kWarpThreads;  // a power of two in [1, 32]

 public:
  // One float per warp. Alias it with other shared memory only across a __syncthreads().
  struct TempStorage {
    float warp_partial[WARPS];
  };

  __device__ __forceinline__ explicit BlockReduceWarpShuffle(TempStorage& temp) : s_(temp) {}

  // Every thread of the block calls it, converged, with its own partial (identity() if it has no
  // data). Valid result: THREAD 0 ONLY.
  // Before calling again with the same TempStorage, __syncthreads(): warp 0 may still be reading
  // the partials when the other warps return.
  __device__ __forceinline__ float reduce(float v, Op op = Op()) {
    v = warp_reduce_shfl_down(v, op);  // valid in lane 0 of each warp
    if (WARPS == 1) return v;
    const int lane = lane_id();
    const int warp = warp_id();
    if (lane == 0) s_.warp_partial[warp] = v;
    __syncthreads();  // warp 0 reads the partials of every warp
    if (warp == 0) {
      v = lane < WARPS ? s_.warp_partial[lane] : Op::identity();
      v = warp_reduce_shfl_down<WARPS>(v, op);  // lane 0 combines lanes [0, W) only
    }
    return v;
  }

  // Like reduce, but the result is valid in EVERY thread, bit-identical, still with ONE
  // __syncthreads: instead of warp 0 reducing and broadcasting (a second barrier), every warp
  // loads all W partials (lane l takes partial[l mod W], broadcast reads without bank conflicts)
  // and reduces them with an xor butterfly of width W; all warps run the same operations on the
  // same data, so they agree bit for bit, and they agree with reduce()'s thread 0.
  // Cost: reduce's + the level-2 loads and log2(W) shuffles in every warp instead of one.
  // Before reusing the TempStorage, __syncthreads(): other warps may still be reading it.
  __device__ __forceinline__ float all_reduce(float v, Op op = Op()) {
    if (WARPS == 1) return warp_reduce_butterfly(v, op);
    v = warp_reduce_shfl_down(v, op);  // valid in lane 0 of each warp
    const int lane = lane_id();
    if (lane == 0) s_.warp_partial[warp_id()] = v;
    __syncthreads();  // every warp reads the partials of every warp
    v = s_.warp_partial[lane & (WARPS - 1)];
    return warp_reduce_butterfly<WARPS>(v, op);
  }

 private:
  TempStorage& s_;
};

}  // namespace epl
