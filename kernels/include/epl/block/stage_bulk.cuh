// epl/block/stage_bulk.cuh — a block stages a contiguous span of global memory in its shared memory
// with the Tensor Memory Accelerator's bulk copies (cp.async.bulk, sm_90), completion counted in
// bytes on an mbarrier.
//
// Records: catalog/realizations/*/…-staged.yaml (epl/row/staged.cuh; primitive tma-bulk-copy).
//
// Why bulk copies and not each thread's loads: one thread issues the whole span as a few
// instructions, the copies land in shared memory without passing through registers, and nothing
// limits the bytes in flight but the span itself, where register-staged loads stop at what the
// threads' registers hold (16 bytes a load, a few loads a thread).
#pragma once

#include "../util.cuh"
#include "mbarrier.cuh"

namespace epl {

// A one-use arrival barrier in shared memory that completes when one arrival and `bytes` of bulk
// copies have landed (phase 0 only: the bodies that use it stage one span per block).
struct alignas(8) BulkBarrier {
  unsigned long long word;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// Bytes one bulk copy carries: small enough that the span goes out as several copies the copy
// engine overlaps, large enough that a 200 KiB span takes a handful of instructions.
constexpr int kBulkPieceBytes = 16 * 1024;

// Every thread of the block calls it, converged. dst: shared, 16-byte aligned; src: global,
// 16-byte aligned; bytes a multiple of 16 (0 allowed). On return the span is in dst and visible to
// every thread. Warp 0 issues the copies, kBulkPieceBytes each, lane i taking pieces i, i + 32, ...;
// thread 0 arms the barrier with the byte count. Cost: one __syncthreads, then a wait on the barrier.
__device__ __forceinline__ void stage_bulk(void* dst, const void* src, unsigned bytes, BulkBarrier& bar) {
  const unsigned b = shared_address(&bar);
  if (threadIdx.x == 0) {
    mbarrier_init(b, 1);
    mbarrier_init_fence();  // the async proxy (the copy engine) must see the initialized barrier
  }
  __syncthreads();
  if (threadIdx.x < kWarpThreads) {
    if (threadIdx.x == 0) mbarrier_arrive_expect_bytes(b, bytes);
    const unsigned d = shared_address(dst);
    const char* s = static_cast<const char*>(src);
    for (unsigned off = threadIdx.x * kBulkPieceBytes; off < bytes; off += kWarpThreads * kBulkPieceBytes) {
      const unsigned n = min(bytes - off, static_cast<unsigned>(kBulkPieceBytes));
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(d + off), "l"(s + off), "r"(n), "r"(b) : "memory");
    }
  }
  mbarrier_wait_parity(b, 0);
}

#endif  // __CUDA_ARCH__ >= 900

}  // namespace epl
