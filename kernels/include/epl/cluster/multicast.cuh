// epl/cluster/multicast.cuh — one tensor-map box landing in the shared memory of several blocks of a
// thread-block cluster (TMA .multicast::cluster, sm_90), and the remote mbarrier arrival with which
// a block tells a peer that it is done with a buffer the peer writes into.
//
// A multicast load writes the box at the same shared-memory offset in every block of `mask` (bit r:
// cluster rank r) and counts its bytes on the mbarrier at the same offset in each of them, so each
// receiving block announces the bytes of every piece it will receive (its own and its peers'),
// whichever block issues them. A peer's bytes may land before the receiver's announcement of that
// phase: the transaction count goes negative and the phase still waits for the arrival. The issuer
// must know that every receiver's buffer is free (each receiver arrives on the issuer's barrier,
// mbarrier_arrive_cluster) and that every receiver's barriers are initialized (a cluster barrier
// after mbarrier_init_fence).
//
// Users: kernels/operators/gemm/warp-specialized.cu (A tiles shared by a 2-block cluster).
#pragma once

#include "../block/tensor_copy.cuh"
#include "../target.cuh"
#include "dsmem.cuh"

namespace epl {

#if defined(EPL_HAS_CLUSTERS) && defined(EPL_HAS_BULK_COPY)

// One thread: the box at (x, y) into dst (this block's shared address; 1024-byte aligned with the
// 128B swizzle) of every cluster block in `mask`, its bytes counted on each one's `bar` (the
// offset of this block's barrier).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const TensorMap& map, int x, int y, unsigned bar,
                                                      unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst)),
      "l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(bar), "h"(mask)
      : "memory");
}

// One thread: an arrival on the mbarrier `cluster_bar` (a cluster_map_shared address: this block's
// or a peer's), after its wait for the async reads (wgmma) of the buffer the barrier guards. The
// release is the default .cta one, as CUTLASS's consumer release: .release.cluster compiles to
// MEMBAR.ALL.GPU before the arrival (a wait for every store of the block to be visible GPU-wide,
// the epilogue's included), and what it would order, this block's own reads, needs none.
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned cluster_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}

#endif  // EPL_HAS_CLUSTERS && EPL_HAS_BULK_COPY

}  // namespace epl
