// epl/block/stage_bulk.cuh — a block stages a contiguous span of global memory in its shared memory
// with the Tensor Memory Accelerator's bulk copies (cp.async.bulk, sm_90), completion counted in
// bytes on an mbarrier.
//
// Records: catalog/realizations/*/…-staged.yaml (epl/body/staged.cuh; primitive tma-bulk-copy).
//
// Why bulk copies and not each thread's loads: one thread issues the whole span as a few
// instructions, the copies land in shared memory without passing through registers, and nothing
// limits the bytes in flight but the span itself, where register-staged loads stop at what the
// threads' registers hold (16 bytes a load, a few loads a thread).
#pragma once

#include "../target.cuh"
#include "../util.cuh"
#include "bulk_copy.cuh"
#include "mbarrier.cuh"

namespace epl {

// A one-use arrival barrier in shared memory that completes when one arrival and `bytes` of bulk
// copies have landed (phase 0 only: the bodies that use it stage one span per block).
struct alignas(8) BulkBarrier {
  unsigned long long word;
};

#if defined(EPL_HAS_BULK_COPY)

// Every thread of the block calls it, converged. dst: shared, 16-byte aligned; src: global,
// 16-byte aligned; bytes a multiple of 16 (0 allowed). On return the span is in dst and visible to
// every thread. Warp 0 issues the copies (bulk_copy_to_shared: kBulkCopyPieceBytes each, L2 asked to
// keep them). Cost: one __syncthreads, then a wait on the barrier.
__device__ __forceinline__ void stage_bulk(void* dst, const void* src, unsigned bytes, BulkBarrier& bar) {
  const unsigned b = shared_address(&bar);
  if (threadIdx.x == 0) {
    mbarrier_init(b, 1);
    mbarrier_init_fence();  // the async proxy (the copy engine) must see the initialized barrier
  }
  __syncthreads();
  if (threadIdx.x < kWarpThreads) bulk_copy_to_shared(dst, src, bytes, b);
  mbarrier_wait_parity(b, 0);
}

#endif  // EPL_HAS_BULK_COPY

}  // namespace epl
