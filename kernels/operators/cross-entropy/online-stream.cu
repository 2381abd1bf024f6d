// Record:       cross-entropy/online-stream (catalog/realizations/cross-entropy/online-stream.yaml)
// Contract:     row-cross-entropy — loss[r] = logsumexp(x[r, :]) - x[r, target[r]], float32 (0 where
//               target[r] == ignore_index, NaN where it is outside the row).
// Phases:       G consecutive threads per row (BLOCK = max(G, 256), BLOCK / G rows per block):
//               1. every thread folds its share of the row online into (m, l): every G-th 16-byte
//                  vector, UNROLL in flight (element loads if rows are not 16-byte aligned;
//                  PATH = epl::kSplitPath: every row split by address, a scalar head and tail around its
//                  16-byte body, epl/group/walk.cuh);
//               2. all-reduce of (m, l) over the G threads (shuffles; G > 32 also shared slots and
//                  one __syncthreads);
//               3. the row's first thread writes loss[r]; it loads the target logit after the
//                  all-reduce, or with TARGET_AHEAD before the fold (held in a register through it).
// Traffic:      reads sizeof(T) bytes per element once plus one 8-byte target and one logit per row; writes 4 bytes per row.
// Shared mem:   G > 32: 16 * BLOCK / 32 bytes static; none otherwise.
// Determinism:  bitwise (fixed fold and merge order for a fixed mapping; no atomics).
// Constraints:  G a power of two <= 1024; gridDim.x == ceil_div(rows, BLOCK / G).
#include <epl/body/stream.cuh>
#include <epl/group/lanes.cuh>
#include <epl/policy/values.cuh>

// PATH: epl::kAnyPath (the rows entry) or epl::kSplitPath (the split entry, launch.steps[].split_entry:
// every row split by address around its 16-byte body).
template <int G, int UNROLL, bool TARGET_AHEAD, typename T, epl::RowPath PATH = epl::kAnyPath>
__global__ void __launch_bounds__(epl::row_block_threads(G))
cross_entropy_online_stream(const T* __restrict__ x,  // rows x cols, row-major
                 const long long* __restrict__ target,  // rows: a class in [0, cols), or ignore_index
                 float* __restrict__ loss,  // rows
                 int rows, int cols,
                 int ignore_index) {  // a row whose target is this gives 0
  epl::rows_to_values<epl::RowLanes<epl::row_block_threads(G), G>, UNROLL, T, PATH>(epl::CrossEntropyValue<T, TARGET_AHEAD>{x, target, cols, ignore_index}, x, loss, rows, cols);
}

