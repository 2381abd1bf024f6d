// epl/warp/reduce_shuffle_classes.cuh — the shuffle algorithms of warp/reduce.cuh behind the
// warp-reduce class interface (see warp/reduce_classes.cuh for the interface and the choice).
//
// Records: catalog/realizations/warp-reduce/shfl-down.yaml, warp-reduce/butterfly.yaml
#pragma once

#include "reduce.cuh"

namespace epl {

template <typename Op>
class WarpReduceShflDown {
 public:
  using value_type = float;
  static constexpr bool kResultInAllLanes = false;  // lane 0 only
  struct TempStorage {};                            // registers only

  __device__ __forceinline__ explicit WarpReduceShflDown(TempStorage&) {}
  __device__ __forceinline__ float reduce(float v, Op op = Op()) const { return warp_reduce_shfl_down(v, op); }
};

template <typename Op>
class WarpReduceButterfly {
 public:
  using value_type = float;
  static constexpr bool kResultInAllLanes = true;  // identical bits in every lane
  struct TempStorage {};                           // registers only

  __device__ __forceinline__ explicit WarpReduceButterfly(TempStorage&) {}
  __device__ __forceinline__ float reduce(float v, Op op = Op()) const { return warp_reduce_butterfly(v, op); }
};

}  // namespace epl
