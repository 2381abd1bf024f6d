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
//
// EXPLORATION COPY (explorations/20261201-staged-pipelined): stage_bulk split into its three steps
// (arm, copy, wait) so that a persistent body can reuse a barrier phase after phase.
#pragma once

#include "../util.cuh"

namespace epl {

// An arrival barrier in shared memory that completes a phase when one arrival and the armed bytes of
// bulk copies have landed.
struct alignas(8) BulkBarrier {
  unsigned long long word;
};

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// Bytes one bulk copy carries: small enough that the span goes out as several copies the copy
// engine overlaps, large enough that a 200 KiB span takes a handful of instructions.
constexpr int kBulkPieceBytes = 16 * 1024;

// One thread, once, before any thread waits on it (then a __syncthreads).
__device__ __forceinline__ void bulk_barrier_init(BulkBarrier& bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&bar)) : "memory");
  // The async proxy (the copy engine) must see the initialized barrier.
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Warp 0 of the block, converged: thread 0 arms the barrier's phase with `bytes` and lane i issues
// pieces i, i + 32, ... of the span. dst: shared, src: global, both 16-byte aligned; bytes a
// multiple of 16 (0 allowed).
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes, BulkBarrier& bar) {
  const unsigned b = shared_address(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
  }
  const unsigned d = shared_address(dst);
  const char* s = static_cast<const char*>(src);
  for (unsigned off = threadIdx.x * kBulkPieceBytes; off < bytes; off += kWarpThreads * kBulkPieceBytes) {
    const unsigned n = min(bytes - off, static_cast<unsigned>(kBulkPieceBytes));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(d + off), "l"(s + off), "r"(n), "r"(b) : "memory");
  }
}

// Every thread that reads the span: returns once the phase of the given parity has completed.
__device__ __forceinline__ void bulk_wait(BulkBarrier& bar, unsigned parity) {
  const unsigned b = shared_address(&bar);
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done) : "r"(b), "r"(parity) : "memory");
  }
}

// Every thread of the block calls it, converged: the span staged once (the barrier's phase 0).
__device__ __forceinline__ void stage_bulk(void* dst, const void* src, unsigned bytes, BulkBarrier& bar) {
  if (threadIdx.x == 0) bulk_barrier_init(bar);
  __syncthreads();
  if (threadIdx.x < kWarpThreads) bulk_copy_to_shared(dst, src, bytes, bar);
  bulk_wait(bar, 0);
}

#endif  // __CUDA_ARCH__ >= 900

}  // namespace epl
