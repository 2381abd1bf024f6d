// Record:       device-reduce/cluster-dsmem (catalog/realizations/device-reduce/cluster-dsmem.yaml)
// Contract:     device-reduce — ONE float32 result (sum or max) of n elements, float32 accumulation.
// Phases:       launch 1 (round_up(min(ceil_div(n, BLOCK*ITEMS), max_blocks), CLUSTER) blocks of
//               BLOCK, in clusters of CLUSTER set at compile time by __cluster_dims__):
//                 1. fold tiles of BLOCK*ITEMS elements dealt round-robin, coalesced scalar loads;
//                 2. block reduction by warp shuffles (one barrier);
//                 3. the cluster's blocks combine their partials through distributed shared
//                    memory (cluster.sync, rank 0 reads the others' slots, cluster.sync);
//                 4. rank 0's thread 0 writes partials[blockIdx.x / CLUSTER];
//               launch 2 (one block of 1024):
//                 5. fold the partials with 16-byte loads, block reduction, thread 0 writes out[0].
// Traffic:      reads sizeof(T) bytes per element; 4 bytes per CLUSTER blocks written and read
//               again; writes 4 bytes.
// Determinism:  bitwise for a fixed grid.
// Constraints:  sm_90 or later; gridDim.x a multiple of CLUSTER (the plan rounds up; surplus
//               blocks fold nothing); BLOCK a power of two in [32, 1024] == blockDim.x;
//               1 <= n < 2^31; partials 16-byte aligned (scratch buffers are).
#include <epl/block/reduce_warp_shuffle.cuh>
#include <epl/cluster/reduce_dsmem.cuh>
#include <epl/device/fold_tiles.cuh>
#include <epl/device/reduce_partials.cuh>

template <int BLOCK, int ITEMS, int CLUSTER, typename T, typename Op>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
device_reduce_cluster_dsmem_partials(const T* __restrict__ x,       // n input elements
                                     float* __restrict__ partials,  // one per cluster
                                     int n) {                       // element count
  using BlockReduce = epl::BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float acc = epl::device::fold_tiles_strided<BLOCK, ITEMS, T, Op>(x, n, blockIdx.x, gridDim.x);
  const float b = BlockReduce(temp).reduce(acc);                         // valid in thread 0
  const float c = epl::device::cluster_reduce_dsmem<CLUSTER, Op>(b);     // valid in rank 0, thread 0
  if (threadIdx.x == 0 && blockIdx.x % CLUSTER == 0) partials[blockIdx.x / CLUSTER] = c;
}

template <int BLOCK, typename Op>
__global__ void __launch_bounds__(BLOCK)
device_reduce_cluster_dsmem_finish(const float* __restrict__ partials,  // m partials of launch 1
                                   int m,                               // partial count
                                   float* __restrict__ out) {           // the result
  epl::device::reduce_partials_block<BLOCK, Op>(partials, m, out);
}
