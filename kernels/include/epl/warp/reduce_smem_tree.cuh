// epl/warp/reduce_smem_tree.cuh — warp reduction through a shared-memory tree; no shuffles.
//
// Record: catalog/realizations/warp-reduce/smem-tree.yaml
//
// The warp-synchronous tree of the old CUDA samples, made legal for independent thread scheduling:
// every lane stores its value, then for offset 16, 8, 4, 2, 1 lanes below the offset combine
// s[lane] with s[lane + offset]. A __syncwarp before each level orders the previous level's stores
// before this level's loads (since Volta, lanes of a warp are not guaranteed to run in lockstep,
// so the old `volatile` idiom is not enough). Within a level the readers touch [offset, 2*offset)
// and the writers [0, offset): no hazard inside a level.
#pragma once

#include "../util.cuh"

namespace epl {

// Op: an epl operator (thread/ops.cuh). Scope: the 32 lanes of one warp; every lane calls, converged.
//
// Cost per call: 128 B of shared memory per warp (TempStorage), 32 + 15 STS, 31 LDS, 31 ops on a
// critical path of 5 dependent STS -> __syncwarp -> LDS -> op levels; 5 __syncwarp (ptxas emits
// them as NOP on the converged path, with a WARPSYNC fallback). No SHFL: the answer to "what does
// a shuffle save" when compared with warp-reduce/shfl-down.
template <typename Op>
class WarpReduceSmemTree {
 public:
  using value_type = float;
  static constexpr bool kResultInAllLanes = false;  // lane 0 only

  // One float per lane, one TempStorage per warp. Alias it only across a __syncwarp().
  struct TempStorage {
    float partial[kWarpThreads];
  };

  __device__ __forceinline__ explicit WarpReduceSmemTree(TempStorage& temp) : s_(temp) {}

  // Every lane of the warp calls it, converged, with its own value (identity() if it has none).
  // Valid result: LANE 0 ONLY. Before calling again with the same TempStorage, __syncwarp(): lane 0
  // may still be reading s[1] when the other lanes return.
  __device__ __forceinline__ float reduce(float v, Op op = Op()) {
    const int lane = lane_id();
    s_.partial[lane] = v;
#pragma unroll
    for (int offset = kWarpThreads / 2; offset > 0; offset /= 2) {
      __syncwarp();  // s[offset, 2*offset) was stored by other lanes in the previous level
      if (lane < offset) {
        v = op(v, s_.partial[lane + offset]);
        if (offset > 1) s_.partial[lane] = v;  // the last level's result stays in lane 0's v
      }
    }
    return v;
  }

 private:
  TempStorage& s_;
};

}  // namespace epl
