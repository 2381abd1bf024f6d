// Record:       log-softmax/online-cluster-reread (catalog/realizations/log-softmax/online-cluster-reread.yaml)
// Contract:     row-log-softmax — y[r, j] = x[r, j] - max_j x[r, j] - log(sum_j exp(x[r, j] - max)) in T.
// Phases:       a cluster of CLUSTER blocks of BLOCK threads per row (compile-time __cluster_dims__),
//               block rank k owning slice k (ceil_div(cols, CLUSTER) rounded up to 16-byte vectors):
//               1. every thread folds every BLOCK-th 16-byte vector of its slice into an online (m, l)
//                  state, UNROLL loads in flight (element loads if an array is unaligned);
//               2. the (m, l) states all-reduced over the block (warp butterflies, one
//                  __syncthreads), then over the CLUSTER blocks through distributed shared memory
//                  (one mbarrier wait); shift = m, log(l);
//               3. the same threads reread their slice (from L1/L2) and store (x - shift) - log(l),
//                  16 bytes per store.
// Traffic:      reads sizeof(T) bytes per element twice (the second from L1/L2), writes them once.
// Shared mem:   16 * BLOCK / 32 + 32 * CLUSTER + 16 bytes static.
// Determinism:  bitwise (fixed fold and merge order for fixed CLUSTER, BLOCK, UNROLL and load path).
// Registers:    __launch_bounds__ for SM_THREADS threads per SM (1024: up to 64 a thread; 2048: 32).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 8; BLOCK a power of two in [32, 1024];
//               cols >= 1; gridDim.x == rows * CLUSTER; x finite or -inf; x and y do not overlap.
#include <epl/body/reread.cuh>
#include <epl/cluster/row_cluster.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, int SM_THREADS, typename T, epl::RowPath PATH>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK, epl::row_reread_min_blocks(SM_THREADS, BLOCK))
log_softmax_online_cluster_reread(const T* __restrict__ x,  // rows x cols, row-major
                                  T* __restrict__ y,        // rows x cols
                                  int rows, int cols) {
  using Group = epl::RowCluster<CLUSTER, BLOCK>;
  epl::rows_reread<Group, UNROLL, PATH>(epl::LogSoftmaxStreamed{}, x, static_cast<const T*>(nullptr),
                                        static_cast<const T*>(nullptr), y, rows, cols);
}
