// Record:       logsumexp/online-stream (catalog/realizations/logsumexp/online-stream.yaml)
// Contract:     row-logsumexp — out[r] = log sum_j exp(x[r, j]) = m[r] + log l[r], float32; an all -inf row gives -inf.
// Phases:       G consecutive threads per row (BLOCK = max(G, 256), BLOCK / G rows per block):
//               1. every thread folds its share of the row online into (m, l): every G-th 16-byte
//                  vector, UNROLL in flight (element loads if rows are not 16-byte aligned;
//                  PATH = epl::kSplitPath: every row split by address, a scalar head and tail around its
//                  16-byte body, epl/group/walk.cuh);
//               2. all-reduce of (m, l) over the G threads (shuffles; G > 32 also shared slots and
//                  one __syncthreads);
//               3. the row's first thread writes out[r].
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per row.
// Shared mem:   G > 32: 16 * BLOCK / 32 bytes static; none otherwise.
// Determinism:  bitwise (fixed fold and merge order for a fixed mapping; no atomics).
// Constraints:  G a power of two <= 1024; gridDim.x == ceil_div(rows, BLOCK / G).
#include <epl/body/stream.cuh>
#include <epl/group/lanes.cuh>
#include <epl/policy/values.cuh>

// PATH: epl::kAnyPath (the rows entry) or epl::kSplitPath (the split entry, launch.steps[].split_entry:
// every row split by address around its 16-byte body).
template <int G, int UNROLL, typename T, epl::RowPath PATH = epl::kAnyPath>
__global__ void __launch_bounds__(epl::row_block_threads(G))
logsumexp_online_stream(const T* __restrict__ x,  // rows x cols, row-major
                 float* __restrict__ out,  // rows
                 int rows, int cols) {
  epl::rows_to_values<epl::RowLanes<epl::row_block_threads(G), G>, UNROLL, T, PATH>(epl::LogSumExpValue{}, x, out, rows, cols);
}

