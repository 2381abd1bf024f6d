// Record:       segmented-row-reduce/rows-per-block (catalog/realizations/segmented-row-reduce/rows-per-block.yaml)
// Contract:     row-reduce — out[r] = op over x[r, 0:cols], float32, for a row-major [rows, cols] x.
// Phases:       1. the block's BLOCK/GROUP lane groups own one row each (GROUP consecutive lanes,
//                  aligned inside a warp); each lane folds every GROUP-th 16-byte vector of its
//                  row, UNROLL loads in flight (scalar loads if rows are not 16-byte aligned);
//               2. log2(GROUP)-step shuffle-down tree restricted to the group (width GROUP);
//               3. the group's first lane writes out[row].
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per row.
// Shared mem:   none. Barriers: none.
// Determinism:  bitwise (fixed order for a fixed GROUP, UNROLL and load path; no atomics).
// Constraints:  GROUP a power of two <= 32; BLOCK a multiple of 32 == blockDim.x;
//               gridDim.x == ceil_div(rows, BLOCK/GROUP); cols < 2^31.
#include <epl/body/reduce_group.cuh>

template <int GROUP, int BLOCK, int UNROLL, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
row_reduce_rows_per_block(const T* __restrict__ x,    // rows x cols, row-major
                          float* __restrict__ out,    // rows
                          int rows, int cols) {
  epl::row_reduce_lane_groups<GROUP, BLOCK, UNROLL, T, Op>(x, out, rows, cols);
}
