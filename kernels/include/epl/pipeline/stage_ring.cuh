// epl/pipeline/stage_ring.cuh — a ring of STAGES shared-memory slots between one producer thread and
// the consumers of a block, or of the blocks of a cluster that share the slots' contents (sm_90).
//
// Each slot has a full mbarrier (one arrival: the producer's announcement of the slot's bytes, then
// the copies' bytes complete it) and an empty mbarrier (`releases` arrivals: the consumers, done
// reading). Both sides count positions: position p is slot p % STAGES on pass p / STAGES, and both
// advance p in the same order, across output tiles too, so no state but p is carried. Phases are
// waited by parity: the consumers wait for the full phase of pass p / STAGES; the producer waits for
// the empty phase of the pass before (on pass 0 the parity of "phase -1" reads as complete, so the
// first STAGES positions need no release). A parity tells phase q from q - 1, not from q - 2: a
// consumer may wait for position p only once position p - STAGES has been waited (by itself, or,
// for consumers that skip positions, by one that precedes it: turns.cuh). A consumer releases a
// position once its reads are finished (after wgmma.wait_group for wgmma's asynchronous reads);
// the ring holds no block barrier.
//
// Clusters (CLUSTER > 1): a slot whose contents the cluster's blocks load for each other (multicast)
// may be refilled only when every receiving block is done with it, so each block's empty barrier
// counts the releases of all CLUSTER blocks: a releasing warp's lane r arrives on rank r's barrier.
//
// Users: kernels/operators/gemm/warp-specialized.cu.
#pragma once

#include "../block/mbarrier.cuh"
#include "../block/mbarrier_arrive.cuh"
#include "../cluster/dsmem.cuh"
#include "../cluster/multicast.cuh"
#include "../target.cuh"

namespace epl {

#if defined(EPL_HAS_BULK_COPY)

template <int STAGES, int CLUSTER = 1>
struct StageRing {
  static_assert(STAGES >= 2, "a ring of one slot serializes the producer and its consumers");
  unsigned long long full[STAGES];
  unsigned long long empty[STAGES];

  // One thread, before any use: `releases` = the releasing threads of one block per position times
  // CLUSTER. Then mbarrier_init_fence and a block barrier (a cluster barrier for CLUSTER > 1).
  __device__ __forceinline__ void init(unsigned releases) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(shared_address(&full[s]), 1);
      mbarrier_init(shared_address(&empty[s]), releases);
    }
  }

  // Positions are never negative: unsigned division spares the sign fix-up.
  __device__ __forceinline__ static int slot(int p) { return static_cast<int>(static_cast<unsigned>(p) % STAGES); }
  __device__ __forceinline__ static unsigned parity(int p) { return (static_cast<unsigned>(p) / STAGES) & 1u; }
  __device__ __forceinline__ unsigned full_bar(int p) const { return shared_address(&full[slot(p)]); }
  __device__ __forceinline__ unsigned empty_bar(int p) const { return shared_address(&empty[slot(p)]); }

  // The producer thread: returns once position p's slot may be overwritten, then announces the
  // `bytes` the slot will receive (from every block that loads into it) on its full barrier.
  __device__ __forceinline__ void acquire(int p, unsigned bytes) const {
    mbarrier_wait_parity(empty_bar(p), parity(p) ^ 1u);
    mbarrier_arrive_expect_bytes(full_bar(p), bytes);
  }

  // Consumers: returns once position p's bytes have landed; they are visible to the caller.
  __device__ __forceinline__ void wait(int p) const { mbarrier_wait_parity(full_bar(p), parity(p)); }

  // One of the counted releasing threads: position p's slot is done with in this block, told to the
  // block of cluster rank `peer` (0 without a cluster). Releases what the thread and the async
  // operations it waited for did before.
  __device__ __forceinline__ void release(int p, unsigned peer) const {
    if constexpr (CLUSTER == 1) {
      mbarrier_arrive(empty_bar(p));
    } else {
      mbarrier_arrive_cluster(cluster_map_shared(empty_bar(p), peer));
    }
  }
};

#endif  // EPL_HAS_BULK_COPY

}  // namespace epl
