// Record:       rmsnorm/staged-pipelined (EXPLORATION: explorations/20261201-staged-pipelined)
// Contract:     row-rmsnorm — y[r, j] = x[r, j] * rsqrt(mean_j x[r, j]^2 + eps) * weight[j] in T.
// Phases:       rmsnorm/staged over a persistent grid: cluster g of G takes rows g, g + G, ...;
//               each block stages its segment of the next row (bulk copies into a second buffer)
//               before folding and rewriting the current one.
// Constraints:  sm_90; dynamic shared memory 2 * row_staged_bytes<T>(cols, CLUSTER); gridDim.x
//               a multiple of CLUSTER, at most rows * CLUSTER.
#include <epl/row/staged_pipelined.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, typename T>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
rmsnorm_staged_pipelined(const T* __restrict__ x, const T* __restrict__ weight, T* __restrict__ y, int rows,
                         int cols, float eps) {
  using Group = typename epl::RowStagers<CLUSTER, BLOCK>::Group;
  epl::rows_staged_pipelined<Group, CLUSTER, UNROLL>(epl::RmsNormStreamed{{eps}}, x, weight,
                                                     static_cast<const T*>(nullptr), y, rows, cols);
}
