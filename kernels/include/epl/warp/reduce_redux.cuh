// epl/warp/reduce_redux.cuh — warp reduction in ONE instruction: redux.sync (sm_80+), int32 only.
//
// Record: catalog/realizations/warp-reduce/redux-sync.yaml
//
// __reduce_add_sync / __reduce_max_sync / __reduce_min_sync compile to one SASS REDUX per call
// (plus a move of its uniform-register result), result in EVERY lane. The instruction exists for
// 32-bit integers only on sm_80..sm_90; float sums still go through shuffles (warp/reduce.cuh).
//
// Integer semantics (also what a lane's own fold before the warp step must use, so that the whole
// reduction is one well-defined function): Sum adds modulo 2^32 (two's-complement wrap-around, as
// the adder does; computed on unsigned so C++ has no overflow UB), Max and Min are signed.
#pragma once

#include "../thread/ops.cuh"
#include "../util.cuh"

namespace epl {

// The int32 form of an epl operator: identity, the lane's own combine, and the warp instruction.
template <typename Op> struct ReduxOp;

template <> struct ReduxOp<Sum> {
  static __device__ __forceinline__ int identity() { return 0; }
  static __device__ __forceinline__ int combine(int a, int b) {
    return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));  // wraps mod 2^32
  }
  static __device__ __forceinline__ int warp(int v) { return __reduce_add_sync(kFullWarpMask, v); }
};

template <> struct ReduxOp<Max> {
  static __device__ __forceinline__ int identity() { return -2147483647 - 1; }  // INT32_MIN
  static __device__ __forceinline__ int combine(int a, int b) { return max(a, b); }
  static __device__ __forceinline__ int warp(int v) { return __reduce_max_sync(kFullWarpMask, v); }
};

template <> struct ReduxOp<Min> {
  static __device__ __forceinline__ int identity() { return 2147483647; }  // INT32_MAX
  static __device__ __forceinline__ int combine(int a, int b) { return min(a, b); }
  static __device__ __forceinline__ int warp(int v) { return __reduce_min_sync(kFullWarpMask, v); }
};

// Reduces v over all 32 lanes; every lane must call it, converged. Valid result: in EVERY lane.
// Cost: one REDUX (a fixed-latency warp-wide instruction) instead of 5 SHFL + 5 op.
template <typename Op>
__device__ __forceinline__ int warp_reduce_redux(int v, Op) {
  return ReduxOp<Op>::warp(v);
}

// The same behind the warp-reduce class interface (warp/reduce_classes.cuh).
template <typename Op>
class WarpReduceRedux {
 public:
  using value_type = int;
  static constexpr bool kResultInAllLanes = true;
  struct TempStorage {};  // registers only

  __device__ __forceinline__ explicit WarpReduceRedux(TempStorage&) {}
  __device__ __forceinline__ int reduce(int v, Op op = Op()) const { return warp_reduce_redux(v, op); }
};

}  // namespace epl
