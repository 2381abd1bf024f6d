// Record:       rmsnorm/cluster-reread (catalog/realizations/rmsnorm/cluster-reread.yaml)
// Contract:     row-rmsnorm — y[r, j] = x[r, j] * rsqrt(mean_j x[r, j]^2 + eps) * weight[j] in T.
// Phases:       a cluster of CLUSTER blocks of BLOCK threads per row (compile-time __cluster_dims__),
//               block rank k owning slice k (ceil_div(cols, CLUSTER) rounded up to 16-byte vectors):
//               1. every thread folds the sum of squares of every BLOCK-th vector of its slice,
//                  UNROLL loads in flight (element loads if an array is not 16-byte aligned);
//               2. the sum all-reduced over the cluster: block (warp butterflies, one __syncthreads),
//                  then the CLUSTER block sums through distributed shared memory (one mbarrier wait);
//               3. the same threads reread their slice (from L1/L2: a slice, not a row, was read
//                  since) and store x * rstd * weight, 16 bytes per store.
// Traffic:      reads sizeof(T) bytes per element twice (the second from L1/L2), writes them once;
//               the slice's weight once per row from L1/L2.
// Shared mem:   16 * BLOCK / 32 + 32 * CLUSTER + 16 bytes static.
// Determinism:  bitwise (fixed fold and merge order for fixed CLUSTER, BLOCK, UNROLL and load path).
// Registers:    __launch_bounds__ for SM_THREADS threads per SM (1024: up to 64 a thread; 2048: 32).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 8; BLOCK a power of two in [32, 1024];
//               cols >= 1; gridDim.x == rows * CLUSTER; x and y do not overlap.
#include <epl/body/reread.cuh>
#include <epl/cluster/row_cluster.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, int SM_THREADS, typename T, epl::RowPath PATH>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK, epl::row_reread_min_blocks(SM_THREADS, BLOCK))
rmsnorm_cluster_reread(const T* __restrict__ x,       // rows x cols, row-major
                       const T* __restrict__ weight,  // cols
                       T* __restrict__ y,             // rows x cols
                       int rows, int cols, float eps) {
  using Group = epl::RowCluster<CLUSTER, BLOCK>;
  epl::rows_reread<Group, UNROLL, PATH>(epl::RmsNormStreamed{{eps}}, x, weight, static_cast<const T*>(nullptr), y, rows, cols);
}
