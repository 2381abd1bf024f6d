// Record:       layernorm/shifted-staged (catalog/realizations/layernorm/shifted-staged.yaml)
// Contract:     row-layernorm — y[r, j] = (x[r, j] - mean[r]) * rsqrt(var[r] + eps) * weight[j] + bias[j]
//               in T, population variance.
// Phases:       a block per row (CLUSTER 1) or a cluster of CLUSTER blocks per row, block rank k
//               owning slice k (ceil_div(cols, CLUSTER) rounded up to 16-byte vectors):
//               1. the block's segment staged in shared memory by bulk copies (cp.async.bulk);
//               2. every thread sums d = x - p and d^2 over every BLOCK-th 16-byte vector of it, p
//                  the row's first element; the pair all-reduced over the block, then the cluster
//                  (one mbarrier wait): mean = p + E[d], var = E[d^2] - E[d]^2;
//               3. the same threads reread their vectors from shared memory and store
//                  (x - mean) * rstd * weight + bias, 16 bytes per store.
// Traffic:      reads and writes sizeof(T) bytes per element of global memory once; the weight and
//               bias slices once per row from L1/L2.
// Shared mem:   row_staged_split_bytes<T>(cols, CLUSTER) dynamic, plus 16 * BLOCK / 32 + 24 bytes static
//               (and 32 * CLUSTER + 16 more with CLUSTER > 1).
// Determinism:  bitwise (fixed fold and merge order for fixed CLUSTER, BLOCK, UNROLL and path).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 16 (16: a non-portable size, which the
//               runner opts into); BLOCK a power of two in [32, 1024]; cols >= 1, the segment at
//               most 227 KiB; gridDim.x == rows * CLUSTER; x and y do not overlap.
#include <epl/body/staged.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/shifted_sums.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, typename T, epl::RowPath PATH>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
layernorm_shifted_staged(const T* __restrict__ x,       // rows x cols, row-major
                         const T* __restrict__ weight,  // cols
                         const T* __restrict__ bias,    // cols
                         T* __restrict__ y,             // rows x cols
                         int /*rows: the grid holds them*/, int cols, float eps) {
  using Group = typename epl::RowStagers<CLUSTER, BLOCK>::Group;
  epl::rows_staged<Group, UNROLL, PATH>(epl::LayerNormShiftedSums{{eps}}, x, weight, bias, y, cols);
}
