// epl/util.cuh — constants and compile-time helpers shared by every scope.
//
// Compiled by NVRTC: no host standard headers; everything here is constexpr or a CUDA builtin.
#pragma once

namespace epl {

// Threads per warp on every target the lab builds for (sm_80 and later).
constexpr int kWarpThreads = 32;

// Lane mask naming all 32 lanes: the *_sync intrinsics with it require the whole warp to call.
constexpr unsigned kFullWarpMask = 0xffffffffu;

// True for 1, 2, 4, 8, ...; the tree reductions below need power-of-two widths.
__host__ __device__ constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// floor(log2(v)) for v >= 1; used in comments' cost formulas and static checks.
__host__ __device__ constexpr int log2_floor(int v) { return v <= 1 ? 0 : 1 + log2_floor(v >> 1); }

// ceil(a / b) for a >= 0, b > 0.
__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// This thread's lane within its warp and its warp within a 1-D block.
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & (kWarpThreads - 1); }
__device__ __forceinline__ int warp_id() { return static_cast<int>(threadIdx.x) / kWarpThreads; }

}  // namespace epl
