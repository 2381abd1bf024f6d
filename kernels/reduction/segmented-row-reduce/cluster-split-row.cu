// Record:       segmented-row-reduce/cluster-split-row (catalog/realizations/segmented-row-reduce/cluster-split-row.yaml)
// Contract:     row-reduce — out[r] = op over x[r, 0:cols], float32, for a row-major [rows, cols] x.
// Phases:       one launch, rows * CLUSTER blocks of BLOCK in clusters of CLUSTER
//               (compile-time __cluster_dims__):
//               1. block rank k of cluster r folds slice k of row r (ceil_div(cols, CLUSTER)
//                  elements rounded up to whole 16-byte vectors), every BLOCK-th vector per
//                  thread, UNROLL loads in flight (scalar loads if rows are not 16-byte aligned);
//               2. block reduction by two levels of warp shuffles, one __syncthreads;
//               3. cluster.sync; warp 0 of rank 0 reads the CLUSTER block partials through
//                  distributed shared memory and reduces them (log2(CLUSTER) shuffles);
//                  cluster.sync (no block leaves while its partial is read);
//               4. thread 0 of rank 0 writes out[r].
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per row.
// Shared mem:   4*BLOCK/32 + 4 bytes static. Barriers: 1 block + 2 cluster barriers per block.
// Determinism:  bitwise (fixed order for fixed CLUSTER, BLOCK, UNROLL and load path; no atomics).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 8 (portable cluster size);
//               BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows * CLUSTER.
#include <epl/body/reduce_cluster.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, typename T, typename Op>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
row_reduce_cluster_split_row(const T* __restrict__ x,    // rows x cols, row-major
                             float* __restrict__ out,    // rows
                             int cols) {
  epl::row_reduce_cluster_slices<CLUSTER, BLOCK, UNROLL, T, Op>(x, out, cols);
}
