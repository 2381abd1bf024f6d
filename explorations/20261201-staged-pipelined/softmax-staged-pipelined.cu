// Record:       softmax/staged-pipelined (EXPLORATION: explorations/20261201-staged-pipelined)
// Contract:     row-softmax — y[r, j] = exp(x[r, j] - max_j x[r, j]) / sum_j exp(x[r, j] - max) in T.
// Phases:       softmax/online-staged over a persistent grid: cluster g of G takes rows g, g + G, ...;
//               each block stages its segment of the next row (bulk copies into a second buffer)
//               before folding and rewriting the current one.
// Constraints:  sm_90; dynamic shared memory 2 * row_staged_bytes<T>(cols, CLUSTER); gridDim.x
//               a multiple of CLUSTER, at most rows * CLUSTER.
#include <epl/row/staged_pipelined.cuh>

template <int CLUSTER, int BLOCK, int UNROLL, typename T>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
softmax_staged_pipelined(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
  using Group = typename epl::RowStagers<CLUSTER, BLOCK>::Group;
  epl::rows_staged_pipelined<Group, CLUSTER, UNROLL>(epl::SoftmaxStreamed{}, x, static_cast<const T*>(nullptr),
                                                     static_cast<const T*>(nullptr), y, rows, cols);
}
