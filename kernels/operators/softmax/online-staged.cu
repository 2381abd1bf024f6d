// Record:       softmax/online-staged (catalog/realizations/softmax/online-staged.yaml)
// Contract:     row-softmax — y[r, j] = exp(x[r, j] - max_j x[r, j]) / sum_j exp(x[r, j] - max) in T.
// Phases:       a block per row (CLUSTER 1) or a cluster of CLUSTER blocks per row, block rank k
//               owning slice k (ceil_div(cols, CLUSTER) rounded up to 16-byte vectors):
//               1. the block's segment staged in shared memory: warp 0 issues bulk copies
//                  (cp.async.bulk, 16 KiB each) that complete on an mbarrier;
//               2. every thread folds every BLOCK-th 16-byte vector of the staged segment into an
//                  online (m, l) state, UNROLL in flight;
//               3. the states all-reduced over the block (warp butterflies, one __syncthreads), then
//                  over the cluster through distributed shared memory (one mbarrier wait);
//               4. the same threads reread their vectors from shared memory and store
//                  exp(x - m) / l, 16 bytes per store.
// Traffic:      reads and writes sizeof(T) bytes per element of global memory once.
// Shared mem:   row_staged_split_bytes<T>(cols, CLUSTER) dynamic (the segment), plus 16 * BLOCK / 32 + 24
//               bytes static (and 32 * CLUSTER + 16 more with CLUSTER > 1).
// Determinism:  bitwise (fixed fold and merge order for fixed CLUSTER, BLOCK, UNROLL and path).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 16 (16: a non-portable size, which the
//               runner opts into); BLOCK a power of two in [32, 1024]; cols >= 1, the segment at
//               most 227 KiB (the record's domain); gridDim.x == rows * CLUSTER; x finite or -inf; x
//               and y do not overlap.
#include <epl/body/staged.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, typename T, epl::RowPath PATH>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
softmax_online_staged(const T* __restrict__ x,  // rows x cols, row-major
                      T* __restrict__ y,        // rows x cols
                      int cols) {
  using Group = typename epl::RowStagers<CLUSTER, BLOCK>::Group;
  epl::rows_staged<Group, UNROLL, PATH>(epl::SoftmaxStreamed{}, x, static_cast<const T*>(nullptr),
                                        static_cast<const T*>(nullptr), y, cols);
}
