// Record:       cross-entropy/online-cluster (catalog/realizations/cross-entropy/online-cluster.yaml)
// Contract:     row-cross-entropy — loss[r] = logsumexp(x[r, :]) - x[r, target[r]], float32 (0 where
//               target[r] == ignore_index, NaN where it is outside the row).
// Phases:       a cluster of CLUSTER blocks of BLOCK threads per row (compile-time __cluster_dims__):
//               1. block rank k folds slice k of the row online into (m, l), every BLOCK-th
//                  16-byte vector per thread, UNROLL in flight (PATH = epl::kSplitPath: the slice split by
//                  address, a scalar head and tail around its 16-byte body, epl/group/walk.cuh);
//               2. block all-reduce of (m, l) (one __syncthreads), then the CLUSTER block states
//                  through distributed shared memory (one mbarrier wait);
//               3. thread 0 of rank 0 writes loss[r].
// Traffic:      reads sizeof(T) bytes per element once plus one 8-byte target and one logit per row; writes 4 bytes per row.
// Shared mem:   16 * BLOCK / 32 + 32 * CLUSTER + 16 bytes static.
// Determinism:  bitwise (fixed fold and merge order for a fixed mapping; no atomics).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 8; BLOCK a power of two in [32, 1024];
//               gridDim.x == rows * CLUSTER.
#include <epl/body/stream.cuh>
#include <epl/cluster/row_cluster.cuh>
#include <epl/policy/values.cuh>

// PATH: epl::kAnyPath (the rows entry) or epl::kSplitPath (the split entry, launch.steps[].split_entry:
// every row split by address around its 16-byte body).
template <int CLUSTER, int BLOCK, int UNROLL, typename T, epl::RowPath PATH = epl::kAnyPath>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
cross_entropy_online_cluster(const T* __restrict__ x,  // rows x cols, row-major
                 const long long* __restrict__ target,  // rows: a class in [0, cols), or ignore_index
                 float* __restrict__ loss,  // rows
                 int rows, int cols,
                 int ignore_index) {  // a row whose target is this gives 0
  epl::rows_to_values<epl::RowCluster<CLUSTER, BLOCK>, UNROLL, T, PATH>(epl::CrossEntropyValue<T>{x, target, cols, ignore_index}, x, loss, rows, cols);
}

