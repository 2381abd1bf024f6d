// epl/block/reduce_state.cuh — block all-reduce of a mergeable STATE, result in every thread.
//
// Level 1: each warp merges its 32 states with the canonical-order butterfly
// (epl/warp/reduce_state.cuh); lane 0 stores the warp's state in shared memory. One
// __syncthreads. Level 2: every warp loads the W = BLOCK/32 warp states (lane l takes state
// l mod W: broadcast reads) and merges them with a butterfly of width W, so every thread ends with
// the same bits without a second barrier. Warp states are merged in warp order (lower warp first),
// so the result does not depend on scheduling: bitwise reproducible run to run.
#pragma once

#include "../util.cuh"
#include "../warp/reduce_state.cuh"

namespace epl {

// BLOCK: threads in the 1-D block, a power of two in [32, 1024]; blockDim.x must equal it.
// Cost: sizeof(State) * BLOCK/32 bytes of shared memory, 1 __syncthreads,
//       (5 + log2(BLOCK/32)) butterfly steps of sizeof(State)/4 shuffles each.
template <int BLOCK, typename State>
class BlockAllReduceState {
  static_assert(is_pow2(BLOCK) && BLOCK >= kWarpThreads && BLOCK <= 1024,
                "BlockAllReduceState: BLOCK must be a power of two in [32, 1024]");
  static constexpr int WARPS = BLOCK / kWarpThreads;

 public:
  // Alias it with other shared memory only across a __syncthreads().
  struct TempStorage {
    State warp_state[WARPS];
  };

  __device__ __forceinline__ explicit BlockAllReduceState(TempStorage& temp) : s_(temp) {}

  // Every thread calls it, converged, with its own state (the merge identity if it has no data).
  // Valid result: in EVERY thread, bit-identical. Before reusing the TempStorage, __syncthreads():
  // other warps may still be reading it.
  template <typename Merge>
  __device__ __forceinline__ State all_reduce(State s, Merge merge) {
    s = warp_allreduce_state(s, merge);
    if (WARPS == 1) return s;
    if (lane_id() == 0) s_.warp_state[warp_id()] = s;
    __syncthreads();  // every warp reads the state of every warp
    s = s_.warp_state[lane_id() & (WARPS - 1)];
    return warp_allreduce_state<WARPS>(s, merge);
  }

 private:
  TempStorage& s_;
};

}  // namespace epl
