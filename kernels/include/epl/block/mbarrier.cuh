// epl/block/mbarrier.cuh — the shared-memory transaction barrier (mbarrier, sm_90): a phase completes
// when its expected arrivals have arrived and the bytes they announced have landed, whether the copy
// engine brings them (cp.async.bulk) or a peer block of the cluster stores them (st.async,
// epl/cluster/dsmem.cuh).
//
// Users: epl/block/stage_bulk.cuh (a block's span staged by bulk copies) and epl/cluster/dsmem.cuh
// (RowCluster's exchange of block states). Barrier and data addresses are 32-bit shared-window
// addresses (shared_address). The instructions need sm_90, except the init (sm_80);
// the functions are inline and emit nothing unless a kernel calls them.
#pragma once

namespace epl {

// The 32-bit shared-window address of a shared-memory object, as mbarriers, bulk copies and mapa
// take it.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread, before any use: `arrivals` arrivals (besides the announced bytes) complete a phase.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}

// The thread that initialized barriers, after the last init: makes them visible to the async proxy
// and to the cluster's other blocks. Those may use them once a barrier orders them after it.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One thread: its arrival on the current phase, which then also waits for `bytes` more to land.
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// Returns once the phase of this parity has completed (phases 0, 2, ... have parity 0). The wait
// acquires: what landed or was written before the completion is visible after it.
__device__ __forceinline__ void mbarrier_wait_parity(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  }
}

}  // namespace epl
