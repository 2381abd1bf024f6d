// epl/block/warpgroup.cuh — the warpgroups of a block (4 consecutive warps, 128 threads: the unit
// that issues wgmma) and the registers they trade with setmaxnreg (sm_90a).
//
// A block of warp-specialized roles launches with every thread at one register count (ptxas's, set
// by __launch_bounds__(threads, 1)); a producer warpgroup that only issues copies gives registers
// back to the block's pool (setmaxnreg.dec) and the math warpgroups take them (setmaxnreg.inc,
// which waits until the pool holds enough). The counts are compile-time, multiples of 8 in
// [24, 256], and every thread of the warpgroup executes the same one, converged. The pool is the
// launch's: threads x launch count must cover the sum of the new counts, or the .inc waits forever.
// SASS: USETMAXREG.
//
// Users: kernels/operators/gemm/warp-specialized.cu (a producer warpgroup and two wgmma ones).
#pragma once

#include "../target.cuh"
#include "../util.cuh"

namespace epl {

constexpr int kWarpgroupThreads = 4 * kWarpThreads;

// This thread's warpgroup in the block (warp-uniform, so branches on it do not diverge a warp).
__device__ __forceinline__ int warpgroup_index() { return static_cast<int>(threadIdx.x) / kWarpgroupThreads; }

#if defined(EPL_HAS_SETMAXNREG)

// Every thread of the warpgroup: lower its registers to REGS a thread, returning the rest to the pool.
template <int REGS>
__device__ __forceinline__ void warpgroup_release_registers() {
  static_assert(REGS % 8 == 0 && REGS >= 24 && REGS <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// Every thread of the warpgroup: raise its registers to REGS a thread, once the pool holds them.
template <int REGS>
__device__ __forceinline__ void warpgroup_claim_registers() {
  static_assert(REGS % 8 == 0 && REGS >= 24 && REGS <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

#endif  // EPL_HAS_SETMAXNREG

}  // namespace epl
