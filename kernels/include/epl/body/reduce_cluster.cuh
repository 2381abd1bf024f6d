// epl/body/reduce_cluster.cuh — a row reduced by a thread-block cluster (sm_90 and later).
//
// Record: catalog/realizations/segmented-row-reduce/cluster-split-row.yaml
//
// For rows too long and too few to fill the device with one block each: the CLUSTER blocks of a
// 1-D cluster split one row into CLUSTER slices (whole 16-byte vectors), each block folds its slice
// and reduces it (block_row_reduce, one __syncthreads), and the cluster merges the CLUSTER block
// partials through distributed shared memory (epl/cluster/reduce_dsmem.cuh: two cluster
// barriers, CLUSTER remote shared loads). One launch, no scratch buffer, no atomics: the split-row
// plan without its second launch.
#pragma once

#include "../cluster/reduce_dsmem.cuh"
#include "../group/fold.cuh"
#include "../target.cuh"
#include "../util.cuh"
#include "reduce_block.cuh"

namespace epl {

#if defined(EPL_HAS_CLUSTERS)

// The body of a row-reduce kernel mapping one row to each cluster of CLUSTER blocks: cluster c
// (blocks c*CLUSTER .. c*CLUSTER + CLUSTER-1) reduces row c; block rank k takes the slice
// [k*S, min((k+1)*S, cols)) with S = ceil_div(cols, CLUSTER) rounded up to whole 16-byte vectors
// (ranks past the end fold nothing); thread 0 of rank 0 writes out[c] (float32).
// Launch: blockDim.x == BLOCK, gridDim.x == rows * CLUSTER, compile-time
// __cluster_dims__(CLUSTER, 1, 1) on the entry.
// Traffic: rows * cols * sizeof(T) read once, rows * 4 bytes written.
// Cost per row: CLUSTER block reductions (one __syncthreads each), 2 cluster barriers,
// CLUSTER remote shared loads and log2(CLUSTER) shuffles in rank 0.
template <int CLUSTER, int BLOCK, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void row_reduce_cluster_slices(const T* __restrict__ x,  // rows x cols, row-major
                                                          float* __restrict__ out,  // rows
                                                          int cols) {
  __shared__ typename BlockReduceWarpShuffle<BLOCK, Op>::TempStorage temp;
  const Op op{};
  constexpr int N = Vec16<T>::N;
  const int row = static_cast<int>(blockIdx.x) / CLUSTER;
  const int rank = static_cast<int>(blockIdx.x) % CLUSTER;  // == cluster.block_rank() for a 1-D cluster
  const int slice = ceil_div(ceil_div(cols, CLUSTER), N) * N;  // whole vectors keep slices aligned
  const int begin = min(cols, rank * slice);
  const int n = min(slice, cols - begin);
  const T* seg = x + static_cast<size_t>(row) * static_cast<size_t>(cols) + begin;
  const float partial = block_row_reduce<BLOCK, UNROLL>(temp, seg, n, rows_are_vector_aligned(x, cols), op);
  const float r = device::cluster_reduce_dsmem<CLUSTER, Op>(partial, op);  // valid in rank 0, thread 0
  if (rank == 0 && threadIdx.x == 0) out[row] = r;
}

#endif  // EPL_HAS_CLUSTERS

}  // namespace epl
