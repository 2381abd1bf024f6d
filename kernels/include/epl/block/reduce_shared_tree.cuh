// epl/block/reduce_shared_tree.cuh — block reduction through a shared-memory tree.
//
// Record: catalog/realizations/block-reduce/shared-tree.yaml
//
// The CUDA-samples "reduce" tree with sequential addressing: level by level, thread t < stride
// combines s[t] and s[t + stride], stride halving from BLOCK/2 to 1. Consecutive threads touch
// consecutive words, so no level has a bank conflict, and in the levels with stride >= 32 the
// active threads are whole warps (no divergence).
//
// Barriers: a level must see the previous level's stores. While the writers of the previous
// level span more than one warp (stride >= 32) that takes __syncthreads; once they are all lanes
// of warp 0 (stride <= 16), __syncwarp is enough. Choice made here: the last warp's five levels
// stay in SHARED MEMORY with __syncwarp, not in shuffles. Why: this realization is the lab's
// pure shared-memory family; a shuffle tail would turn it into the two-level warp-shuffle
// realization for the last five levels and blur exactly the comparison the evidence is meant to
// make (shared-memory traffic and barriers vs register shuffles). __syncwarp, not the old
// volatile warp-synchronous idiom: since Volta, lanes are not guaranteed to run in lockstep, and
// __syncwarp is what orders their shared-memory accesses.
#pragma once

#include "../util.cuh"

namespace epl {

// BLOCK: threads in the (1-D) block, a power of two in [32, 1024]; blockDim.x must equal it.
// Op:    an epl operator (thread/ops.cuh).
//
// Cost per call, W = BLOCK / 32 warps:
//   shared memory   4 * BLOCK bytes (TempStorage)
//   __syncthreads   log2(W)            (128: 2, 256: 3, 512: 4, 1024: 5)
//   __syncwarp      5                  (warp 0 only; the other warps are done after their last level;
//                                      ptxas 13 emits them as NOP on the converged path)
//   shared traffic  BLOCK stores, then BLOCK - 1 loads and BLOCK - 2 stores over the tree
//   ops             BLOCK - 1, on a critical path of log2(BLOCK) dependent load+op steps
template <int BLOCK, typename Op>
class BlockReduceSharedTree {
  static_assert(is_pow2(BLOCK) && BLOCK >= kWarpThreads && BLOCK <= 1024,
                "BlockReduceSharedTree: BLOCK must be a power of two in [32, 1024]");

 public:
  // One float per thread. Alias it with other shared memory only across a __syncthreads().
  struct TempStorage {
    float partial[BLOCK];
  };

  __device__ __forceinline__ explicit BlockReduceSharedTree(TempStorage& temp) : s_(temp) {}

  // Every thread of the block calls it, converged, with its own partial (identity() if it has no
  // data). Valid result: THREAD 0 ONLY; other threads get partial trees.
  // Before calling again with the same TempStorage, __syncthreads(): warps 1..W-1 return while
  // warp 0 still reads the tree.
  __device__ __forceinline__ float reduce(float v, Op op = Op()) {
    const int tid = static_cast<int>(threadIdx.x);
    s_.partial[tid] = v;  // each thread keeps its own running value in v; s[] is for its partner
#pragma unroll
    for (int stride = BLOCK / 2; stride >= kWarpThreads; stride /= 2) {
      __syncthreads();  // s[stride, 2*stride) was written by 2*stride threads: more than one warp
      if (tid < stride) {
        v = op(v, s_.partial[tid + stride]);
        s_.partial[tid] = v;
      }
    }
    if (tid < kWarpThreads) {
#pragma unroll
      for (int stride = kWarpThreads / 2; stride > 0; stride /= 2) {
        __syncwarp();  // s[stride, 2*stride) was written by lanes of warp 0 alone
        if (tid < stride) {
          v = op(v, s_.partial[tid + stride]);
          if (stride > 1) s_.partial[tid] = v;  // the last level's result stays in thread 0's v
        }
      }
    }
    return v;
  }

  // Like reduce, but the result is valid in EVERY thread (thread 0 stores it, one more
  // __syncthreads, everyone loads it). Cost: reduce + 1 store + 1 __syncthreads + 1 broadcast load.
  // Before reusing the TempStorage, __syncthreads(): threads may still be reading s[0].
  __device__ __forceinline__ float all_reduce(float v, Op op = Op()) {
    v = reduce(v, op);
    if (threadIdx.x == 0) s_.partial[0] = v;  // no level reads s[0], so no barrier is needed first
    __syncthreads();                          // thread 0's store visible to every thread
    return s_.partial[0];
  }

 private:
  TempStorage& s_;
};

}  // namespace epl
