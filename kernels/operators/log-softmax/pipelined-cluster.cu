// Record:       log-softmax/pipelined-cluster (catalog/realizations/log-softmax/pipelined-cluster.yaml)
// Contract:     row-log-softmax — y[r, j] = x[r, j] - m[r] - log l[r] in T.
// Phases:       a persistent grid of min(rows, CLUSTERS) clusters of CLUSTER blocks of BLOCK threads
//               (compile-time __cluster_dims__), every cluster resident at once; cluster c takes rows
//               c, c + CLUSTERS, ... and block rank k owns slice k of each (ceil_div(cols, CLUSTER)
//               rounded up to whole 16-byte vectors), ITEMS elements per thread:
//                 1. the next row's slice is fetched (packed, a second set of registers) before the
//                    current one is widened: ITEMS * sizeof(T) bytes per thread stay in flight;
//                 2. the row's constants (the row's (m, l)): block all-reduce (one __syncthreads), then
//                    the CLUSTER block states through distributed shared memory (one mbarrier wait);
//                 3. every element of the slice rewritten from registers, 16 bytes per store.
// Traffic:      reads and writes sizeof(T) bytes per element once (and the parameters once per row).
// Shared mem:   16 * BLOCK / 32 + 32 * CLUSTER + 16 bytes static. Barriers: 1 + 1 mbarrier wait per
//               all-reduce, 1 cluster barrier per kernel.
// Determinism:  bitwise (fixed merge order for fixed CLUSTER, BLOCK, ITEMS; no atomics).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 8; BLOCK a power of two in [32, 512] (one
//               block per SM with two row sets in registers); cols <= CLUSTER * BLOCK * ITEMS (the
//               record's domain); gridDim.x == min(rows, CLUSTERS) * CLUSTER with CLUSTERS no more
//               than the device holds at once; x and y do not overlap.
#include <epl/body/resident_pipelined.cuh>
#include <epl/cluster/row_cluster.cuh>
#include <epl/policy/ops.cuh>

template <int CLUSTER, int BLOCK, int ITEMS, typename T>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK, 1)  // two row sets: up to 65536 / BLOCK registers
log_softmax_pipelined_cluster(const T* __restrict__ x,       // rows x cols, row-major
                              T* __restrict__ y,             // rows x cols
                              int rows, int cols) {
  using Group = epl::RowCluster<CLUSTER, BLOCK>;
  epl::rows_in_registers_pipelined<Group, ITEMS, T>(epl::LogSoftmaxRow{}, x, nullptr, nullptr, y, rows, cols);
}
