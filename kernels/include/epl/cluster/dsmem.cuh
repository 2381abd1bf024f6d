// epl/cluster/dsmem.cuh — distributed shared memory: a block of a thread-block cluster (sm_90)
// addresses a peer block's shared memory and stores into it, the store counted on the peer's
// mbarrier (epl/block/mbarrier.cuh) when it lands.
//
// Users: epl/cluster/row_cluster.cuh (RowCluster's exchange of block states). Addresses are 32-bit
// shared-window addresses (shared_address); the instructions need clusters (EPL_HAS_CLUSTERS), and
// being inline they emit nothing unless a kernel calls them.
#pragma once

#include "../block/mbarrier.cuh"

namespace epl {

// The address that `addr` of this block's shared memory has in the shared memory of cluster block
// `rank` (the same variable in the peer).
__device__ __forceinline__ unsigned cluster_map_shared(unsigned addr, unsigned rank) {
  unsigned mapped;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(addr), "r"(rank));
  return mapped;
}

// A 4-byte store into a peer block's shared memory (dst, bar: cluster_map_shared addresses) that
// counts its 4 bytes on the peer's mbarrier `bar` when it lands. No fence and no barrier orders it:
// the peer sees the value once its wait on `bar` returns.
__device__ __forceinline__ void store_remote_async(unsigned dst, unsigned value, unsigned bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(dst), "r"(value),
               "r"(bar)
               : "memory");
}

}  // namespace epl
