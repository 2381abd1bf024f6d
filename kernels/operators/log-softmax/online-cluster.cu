// Record:       log-softmax/online-cluster (catalog/realizations/log-softmax/online-cluster.yaml)
// Contract:     row-log-softmax — y[r, j] = x[r, j] - m[r] - log l[r] in T; an all -inf row gives -inf.
// Phases:       a cluster of CLUSTER blocks of BLOCK threads per row (compile-time __cluster_dims__):
//               1. block rank k loads slice k of the row (ceil_div(cols, CLUSTER) rounded up to whole
//                  16-byte vectors) into registers, ITEMS elements per thread, all in flight;
//               2. the row's constants: block all-reduce (one __syncthreads), then the
//                  CLUSTER block states through distributed shared memory (one mbarrier wait);
//               3. every element of the slice rewritten from registers, 16 bytes per store.
// Traffic:      reads and writes sizeof(T) bytes per element once.
// Shared mem:   16 * BLOCK / 32 + 32 * CLUSTER + 16 bytes static. Barriers: 1 + 1 mbarrier wait per
//               all-reduce, 1 cluster barrier per kernel.
// Determinism:  bitwise (fixed merge order for fixed CLUSTER, BLOCK, ITEMS; no atomics).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 8; BLOCK a power of two in [32, 1024];
//               cols <= CLUSTER * BLOCK * ITEMS (the record's domain);
//               gridDim.x == rows * CLUSTER; x and y do not overlap.
#include <epl/body/resident.cuh>
#include <epl/cluster/row_cluster.cuh>
#include <epl/policy/ops.cuh>

template <int CLUSTER, int BLOCK, int ITEMS, typename T>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK, 1024 / BLOCK)  // 64 registers: 2 blocks of 512 per SM
log_softmax_online_cluster(const T* __restrict__ x,  // rows x cols, row-major
                 T* __restrict__ y,        // rows x cols
                 int rows, int cols) {
  using Group = epl::RowCluster<CLUSTER, BLOCK>;
  epl::rows_in_registers<Group, ITEMS, T>(epl::LogSoftmaxRow{}, x, nullptr, nullptr, y, rows, cols);
}
