// epl/block/mbarrier_arrive.cuh — a plain arrival on an mbarrier of this block (sm_90): the signal of
// a consumer that is done with a buffer, or of a group that hands on its turn.
//
// Apart from mbarrier.cuh only so that adding it moved no other kernel's source hash (the row kernels'
// measured evidence keys on it); fold it in at that header's next change.
// Users: epl/pipeline/stage_ring.cuh, epl/pipeline/turns.cuh.
#pragma once

namespace epl {

// One thread: an arrival on the current phase of `bar` (a shared_address), releasing (at block
// scope) what it did and waited for before.
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

}  // namespace epl
