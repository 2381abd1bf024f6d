// epl/block/reduce_smem_atomics.cuh — block reduction by atomics on one shared-memory float.
//
// Record: catalog/realizations/block-reduce/smem-atomics.yaml
//
// Thread 0 sets one shared float to the identity; __syncthreads; contributors combine into it with
// shared-memory atomics; __syncthreads; the value is the block's result. Contributors are, by
// the FROM parameter:
//   - SmemAtomicsFrom::warp:   lane 0 of each warp, after a 5-step shuffle-down tree (W atomics);
//   - SmemAtomicsFrom::thread: every thread, with its own value (BLOCK atomics on ONE address,
//                              no shuffles: the shared-memory unit serializes them).
//
// Atomic forms on a float in shared memory:
//   Sum: atomicAdd(float*) — sm_90 has no native shared-memory float add; ptxas emits a
//        load / FADD / compare-and-swap retry loop (ATOMS.CAST.SPIN), retried under contention.
//   Max: the integer-ordering trick — a float with the sign bit clear orders like its bits as a
//        signed int (atomicMax on int), one with the sign bit set orders inversely to its bits as
//        an unsigned int (atomicMin on unsigned); the identity -inf (0xff800000) is the largest
//        unsigned among the negative floats, and every non-negative float beats it on the int
//        side. Routing on the sign BIT, not v >= 0, sends -0.0 to the unsigned side. Native
//        ATOMS.MAX / ATOMS.MIN, no retry loop. NaN is not supported (finite data, as epl::Max).
//   Min: the mirror image (atomicMin on int, atomicMax on unsigned).
//
// Determinism: Max and Min are order-independent, so bitwise reproducible. Sum is NOT: the order
// in which warps (and lanes) reach the atomic depends on scheduling, and float addition is not
// associative, so the low bits of a sum vary from run to run.
#pragma once

#include "../thread/ops.cuh"
#include "../util.cuh"
#include "../warp/reduce_shfl_down.cuh"

namespace epl {

// Which threads contribute an atomic: one per warp (after a shuffle tree) or every thread.
enum class SmemAtomicsFrom { warp, thread };

// atomic_combine(addr, v): *addr = op(*addr, v) atomically, for a float in shared memory.
template <typename Op> struct SharedFloatAtomic;

template <> struct SharedFloatAtomic<Sum> {
  static __device__ __forceinline__ void combine(float* addr, float v) { atomicAdd(addr, v); }
};

template <> struct SharedFloatAtomic<Max> {
  static __device__ __forceinline__ void combine(float* addr, float v) {
    if (__float_as_int(v) >= 0) {
      atomicMax(reinterpret_cast<int*>(addr), __float_as_int(v));  // sign clear: int order is float order
    } else {
      atomicMin(reinterpret_cast<unsigned*>(addr), __float_as_uint(v));  // sign set: inverse unsigned order
    }
  }
};

template <> struct SharedFloatAtomic<Min> {
  static __device__ __forceinline__ void combine(float* addr, float v) {
    if (__float_as_int(v) >= 0) {
      atomicMin(reinterpret_cast<int*>(addr), __float_as_int(v));
    } else {
      atomicMax(reinterpret_cast<unsigned*>(addr), __float_as_uint(v));
    }
  }
};

// BLOCK: threads in the (1-D) block, a power of two in [32, 1024]; blockDim.x must equal it.
// Op:    an epl operator with a SharedFloatAtomic form (Sum, Max, Min).
// FROM:  warp (one atomic per warp) or thread (one atomic per thread).
//
// Cost per call, W = BLOCK / 32 warps:
//   shared memory   4 bytes
//   __syncthreads   2 (one to publish the identity, one to publish the result)
//   atomics         W (warp) or BLOCK (thread), all on one address; serialized by the shared
//                   memory unit, and for Sum each one a CAS loop that retries when another
//                   contributor got in between
//   shuffles        5 per thread (warp) or none (thread)
template <int BLOCK, typename Op, SmemAtomicsFrom FROM = SmemAtomicsFrom::warp>
class BlockReduceSmemAtomics {
  static_assert(is_pow2(BLOCK) && BLOCK >= kWarpThreads && BLOCK <= 1024,
                "BlockReduceSmemAtomics: BLOCK must be a power of two in [32, 1024]");

 public:
  // One float. Alias it with other shared memory only across a __syncthreads().
  struct TempStorage {
    float acc;
  };

  __device__ __forceinline__ explicit BlockReduceSmemAtomics(TempStorage& temp) : s_(temp) {}

  // Every thread of the block calls it, converged, with its own partial (identity() if it has no
  // data). Valid result: in EVERY thread (the second barrier publishes it anyway), so reduce and
  // all_reduce are the same call. Before calling again with the same TempStorage,
  // __syncthreads(): threads may still be reading the result when thread 0 resets it.
  __device__ __forceinline__ float reduce(float v, Op op = Op()) {
    if (threadIdx.x == 0) s_.acc = Op::identity();
    __syncthreads();  // the identity is in place before the first atomic
    if (FROM == SmemAtomicsFrom::warp) {
      v = warp_reduce_shfl_down(v, op);  // valid in lane 0 of each warp
      if (lane_id() == 0) SharedFloatAtomic<Op>::combine(&s_.acc, v);
    } else {
      SharedFloatAtomic<Op>::combine(&s_.acc, v);
    }
    __syncthreads();  // every atomic has landed
    return s_.acc;
  }

  __device__ __forceinline__ float all_reduce(float v, Op op = Op()) { return reduce(v, op); }

 private:
  TempStorage& s_;
};

// Binds FROM, leaving the <int BLOCK, typename Op> shape block harnesses take as a template
// template argument: BlockReduceSmemAtomicsFrom<SmemAtomicsFrom::thread>::of.
template <SmemAtomicsFrom FROM>
struct BlockReduceSmemAtomicsFrom {
  template <int BLOCK, typename Op>
  using of = BlockReduceSmemAtomics<BLOCK, Op, FROM>;
};

}  // namespace epl
