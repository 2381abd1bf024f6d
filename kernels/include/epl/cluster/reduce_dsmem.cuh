// epl/cluster/reduce_dsmem.cuh — the blocks of a thread-block cluster combine their partials
// through distributed shared memory (sm_90 and later).
//
// Scope: a cluster of CLUSTER blocks (sm_90 thread-block clusters: co-scheduled on one GPC, each
// block can read the others' shared memory). Every block's thread 0 stores its partial in a shared
// slot; cluster.sync(); warp 0 of the cluster's rank-0 block reads the CLUSTER slots through
// map_shared_rank (lane k reads rank k) and reduces them with a shuffle tree of width CLUSTER;
// a second cluster.sync() keeps every block's shared memory alive until rank 0 has read it.
// One value per cluster leaves the SM instead of one per block: CLUSTER times fewer partials.
//
// Cost: 2 cluster barriers (barrier.cluster.arrive + wait, every thread of every block of the
// cluster), CLUSTER remote shared loads, log2(CLUSTER) shuffles. The kernel must be launched with a
// 1-D cluster of CLUSTER blocks (compile-time __cluster_dims__(CLUSTER, 1, 1) on the entry).
#pragma once

#include "../target.cuh"
#include "../util.cuh"
#include "../warp/reduce_shfl_down.cuh"

namespace epl {
namespace device {

#if defined(EPL_HAS_CLUSTERS)

// Every thread of every block of the cluster calls it, converged, with v valid in thread 0.
// Valid result: thread 0 of the block whose cluster rank is 0 (the other threads and blocks get
// their own v back). Order: a fixed shuffle tree over ranks 0..CLUSTER-1, bitwise reproducible.
template <int CLUSTER, typename Op>
__device__ __forceinline__ float cluster_reduce_dsmem(float v, Op op = Op()) {
  static_assert(is_pow2(CLUSTER) && CLUSTER <= kWarpThreads, "CLUSTER must be a power of two <= 32");
  // The CUDA cluster builtins (what cooperative_groups' cluster_group wraps, without its headers).
  __shared__ float slot;
  if (threadIdx.x == 0) slot = v;
  __cluster_barrier_arrive();  // every block's slot written, and visible cluster-wide (release/acquire)
  __cluster_barrier_wait();
  float r = v;
  if (__clusterRelativeBlockRank() == 0 && threadIdx.x < kWarpThreads) {  // warp 0 of rank 0, converged
    const int lane = static_cast<int>(threadIdx.x);
    const float w = lane < CLUSTER ? *static_cast<float*>(__cluster_map_shared_rank(&slot, lane)) : Op::identity();
    r = warp_reduce_shfl_down<CLUSTER>(w, op);  // lane 0 combines ranks 0..CLUSTER-1
  }
  __cluster_barrier_arrive();  // no block may exit (freeing its slot) while rank 0 still reads it
  __cluster_barrier_wait();
  return r;
}

#endif  // EPL_HAS_CLUSTERS

}  // namespace device
}  // namespace epl
