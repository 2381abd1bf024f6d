// epl/pipeline/turns.cuh — GROUPS groups of a block take turns at one phase of their work, in the
// fixed cyclic order 0, 1, ..., GROUPS - 1, 0, ... (sm_90 mbarriers): turn g of each round waits for
// turn g - 1 of the same round (group 0 for the previous round's last; its first turn is free).
//
// Ping-pong consumers of one stage ring (stage_ring.cuh) need it for correctness, not only for
// speed: a ring's full barrier is waited by parity, which tells phase q from q - 1 but not from
// q - 2, so no position may be waited before every earlier position of its slot has been. Consumers
// that each take every other tile skip positions; running their main loops in turns makes the
// positions waited in order across the groups. (It also keeps the main loops off each other's
// tensor cores, so one group's epilogue runs under the other's main loop.)
//
// Turn barrier g counts the `arrivals` of group g - 1 (mod GROUPS); its phase r completes with that
// group's r-th turn. Group g > 0 waits in round r for phase r (parity r & 1), group 0 for phase
// r - 1 (parity of r - 1, which for r = 0 reads as complete). The phases alternate strictly (group
// g's next turn needs its own pass first), so a parity never names a phase two away.
//
// Users: kernels/operators/gemm/warp-specialized.cu.
#pragma once

#include "../block/mbarrier.cuh"
#include "../block/mbarrier_arrive.cuh"
#include "../target.cuh"

namespace epl {

#if defined(EPL_HAS_BULK_COPY)

template <int GROUPS>
struct Turns {
  static_assert(GROUPS >= 2, "one group needs no turns");
  unsigned long long turn[GROUPS];

  // One thread, before any use: `arrivals` = the threads of a group that call pass. Then
  // mbarrier_init_fence and a block barrier.
  __device__ __forceinline__ void init(unsigned arrivals) {
    for (int g = 0; g < GROUPS; ++g) mbarrier_init(shared_address(&turn[g]), arrivals);
  }

  // Every thread of group g, before its turn of round `round` (0, 1, ... counted by the group).
  __device__ __forceinline__ void wait(int g, int round) const {
    mbarrier_wait_parity(shared_address(&turn[g]), (static_cast<unsigned>(round) & 1u) ^ (g == 0 ? 1u : 0u));
  }

  // Each of the `arrivals` threads of group g, after its turn: hands the turn to group g + 1.
  __device__ __forceinline__ void pass(int g) const { mbarrier_arrive(shared_address(&turn[(g + 1) % GROUPS])); }
};

#endif  // EPL_HAS_BULK_COPY

}  // namespace epl
