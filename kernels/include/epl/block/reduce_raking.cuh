// epl/block/reduce_raking.cuh — block reduction by raking: one warp folds everyone's values.
//
// Record: catalog/realizations/block-reduce/raking.yaml
//
// CUB's BLOCK_REDUCE_RAKING idea: every thread stores its value in shared memory, ONE
// __syncthreads, then a single warp "rakes": lane l folds the contiguous segment
// [l*SEG, (l+1)*SEG) of the BLOCK values sequentially (SEG = BLOCK/32), and a 5-step shuffle-down
// tree over the 32 lane sums finishes. The other warps do nothing after their one store.
//
// Layout: contiguous segments keep the order of operations blocked (what a non-commutative
// operator would need). Unpadded, lane l's j-th load s[l*SEG + j] would put SEG/gcd lanes on one
// bank; one padding word after every 32 values (index i lives at i + i/32, CUB's
// BlockRakingLayout) makes both the stores (a warp writes 32 consecutive words) and every raking
// step (32 distinct banks for SEG = 4, 8, 16, 32) conflict-free.
#pragma once

#include "../util.cuh"
#include "../warp/reduce_shfl_down.cuh"

namespace epl {

// BLOCK: threads in the (1-D) block, a power of two in [32, 1024]; blockDim.x must equal it.
// Op:    an epl operator (thread/ops.cuh).
//
// Cost per call, W = BLOCK / 32 warps, SEG = W values raked per lane:
//   shared memory   4 * (BLOCK + BLOCK/32) bytes (+4 for all_reduce's broadcast slot)
//   __syncthreads   1 (0 when BLOCK == 32)
//   shared traffic  BLOCK stores, then BLOCK loads by warp 0 alone (SEG per lane, all issued
//                   before the first op)
//   ops             SEG - 1 sequential per raking lane, then 5 SHFL.DOWN + 5 op:
//                   critical path SEG - 1 + 5 dependent ops after the barrier
//   Compared with warp-shuffle: no shuffles in warps 1..W-1 (one STS each instead of 5 SHFL),
//   but warp 0's tail is SEG - 1 + 5 ops long instead of 5 + log2(W).
template <int BLOCK, typename Op>
class BlockReduceRaking {
  static_assert(is_pow2(BLOCK) && BLOCK >= kWarpThreads && BLOCK <= 1024,
                "BlockReduceRaking: BLOCK must be a power of two in [32, 1024]");
  static constexpr int SEG = BLOCK / kWarpThreads;  // values raked per lane of warp 0
  // Padded slot of value i: one unused word after every 32.
  static __device__ __forceinline__ int slot(int i) { return i + i / kWarpThreads; }

 public:
  // BLOCK values plus one pad word per 32, and a broadcast slot. Alias it with other shared
  // memory only across a __syncthreads().
  struct TempStorage {
    float value[BLOCK + BLOCK / kWarpThreads];
    float result;
  };

  __device__ __forceinline__ explicit BlockReduceRaking(TempStorage& temp) : s_(temp) {}

  // Every thread of the block calls it, converged, with its own partial (identity() if it has no
  // data). Valid result: THREAD 0 ONLY.
  // Before calling again with the same TempStorage, __syncthreads(): warp 0 may still be raking
  // when the other warps return.
  __device__ __forceinline__ float reduce(float v, Op op = Op()) {
    if (SEG == 1) return warp_reduce_shfl_down(v, op);  // one warp: nothing to rake
    const int tid = static_cast<int>(threadIdx.x);
    s_.value[slot(tid)] = v;
    __syncthreads();  // warp 0 reads every thread's value
    if (tid < kWarpThreads) {
      float seg[SEG];
#pragma unroll
      for (int j = 0; j < SEG; ++j) seg[j] = s_.value[slot(tid * SEG + j)];  // all loads in flight
      v = seg[0];
#pragma unroll
      for (int j = 1; j < SEG; ++j) v = op(v, seg[j]);  // sequential, in index order
      v = warp_reduce_shfl_down(v, op);                  // lane 0 combines the 32 segments
    }
    return v;
  }

  // Like reduce, but the result is valid in EVERY thread: thread 0 stores it, one more
  // __syncthreads, everyone loads it. Cost: reduce + 1 STS + 1 __syncthreads + 1 broadcast LDS.
  // Before reusing the TempStorage, __syncthreads(): threads may still be reading the result.
  __device__ __forceinline__ float all_reduce(float v, Op op = Op()) {
    v = reduce(v, op);
    if (threadIdx.x == 0) s_.result = v;  // a slot raking never reads, so no barrier first
    __syncthreads();                      // thread 0's store visible to every thread
    return s_.result;
  }

 private:
  TempStorage& s_;
};

}  // namespace epl
