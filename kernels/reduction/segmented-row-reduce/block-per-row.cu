// Record:       segmented-row-reduce/block-per-row (catalog/realizations/segmented-row-reduce/block-per-row.yaml)
// Contract:     row-reduce — out[r] = op over x[r, 0:cols], float32, for a row-major [rows, cols] x.
// Phases:       1. block b owns row b; thread t folds every BLOCK-th 16-byte vector of it, UNROLL
//                  loads in flight (scalar loads if rows are not 16-byte aligned);
//               2. 5-step shuffle-down tree per warp, lane 0 stores the warp's partial;
//               3. one __syncthreads;
//               4. warp 0 reduces the BLOCK/32 partials (log2(BLOCK/32) shuffles);
//               5. thread 0 writes out[b].
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per row.
// Shared mem:   4*BLOCK/32 bytes static. Barriers: 1 per row.
// Determinism:  bitwise (fixed order for a fixed BLOCK, UNROLL and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; cols < 2^31.
#include <epl/body/reduce_block.cuh>

template <int BLOCK, int UNROLL, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
row_reduce_block_per_row(const T* __restrict__ x,    // rows x cols, row-major
                         float* __restrict__ out,    // rows
                         int cols) {
  epl::row_reduce_blocks<BLOCK, UNROLL, T, Op>(x, out, cols);
}
