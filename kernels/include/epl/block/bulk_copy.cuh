// epl/block/bulk_copy.cuh — one warp issues a span of global memory into shared memory as bulk
// copies (cp.async.bulk, sm_90), counted in bytes on an mbarrier the caller owns and reuses: the
// issue alone, for bodies that keep several spans in flight and wait on each later (a ring of
// buffers); stage_bulk.cuh builds on it to initialize, issue and wait for one span at once.
//
// Records: catalog/realizations/*/…-staged*.yaml (epl/body/staged.cuh, epl/body/staged_pipelined.cuh;
//          primitive tma-bulk-copy).
#pragma once

#include "../target.cuh"
#include "../thread/cache_policy.cuh"
#include "../util.cuh"
#include "mbarrier.cuh"

namespace epl {

#if defined(EPL_HAS_BULK_COPY)

// Bytes one bulk copy carries: small enough that a span goes out as several copies the copy engine
// overlaps, large enough that a 200 KiB span takes a handful of instructions.
constexpr int kBulkCopyPieceBytes = 16 * 1024;

// One warp calls it, converged. dst: shared, 16-byte aligned; src: global, 16-byte aligned; bytes a
// multiple of 16 (0 allowed: the phase then completes on the arrival alone). Lane 0 arrives on
// `bar` (a shared_address, initialized for one arrival) announcing the bytes; lane i issues pieces
// i, i + 32, ... The phase completes once every byte has landed; a wait on its parity makes them
// visible. Reusing dst: every reader of the previous span must be done (a __syncthreads) first.
// The copies ask L2 to keep the span (evict_last), so that the output's lines leave first
// (thread/cache_policy.cuh).
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes, unsigned bar) {
  const unsigned lane = threadIdx.x % kWarpThreads;
  if (lane == 0) mbarrier_arrive_expect_bytes(bar, bytes);
  const unsigned d = shared_address(dst);
  const char* s = static_cast<const char*>(src);
  const unsigned long long policy = l2_policy_evict_last();
  for (unsigned off = lane * kBulkCopyPieceBytes; off < bytes; off += kWarpThreads * kBulkCopyPieceBytes) {
    const unsigned n = min(bytes - off, static_cast<unsigned>(kBulkCopyPieceBytes));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                 ::"r"(d + off), "l"(s + off), "r"(n), "r"(bar), "l"(policy) : "memory");
  }
}

// After a __syncthreads that ends the generic-proxy reads of a buffer, before the thread that
// issues the next bulk copy into it: orders those reads before the async proxy's writes.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif  // EPL_HAS_BULK_COPY

}  // namespace epl
