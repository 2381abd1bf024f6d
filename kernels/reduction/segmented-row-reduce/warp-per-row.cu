// Record:       segmented-row-reduce/warp-per-row (catalog/realizations/segmented-row-reduce/warp-per-row.yaml)
// Contract:     row-reduce — out[r] = op over x[r, 0:cols], float32, for a row-major [rows, cols] x.
// Phases:       1. warp w of block b owns row b*BLOCK/32 + w; each lane folds every 32nd 16-byte
//                  vector of the row, UNROLL loads in flight (scalar loads if rows are not
//                  16-byte aligned);
//               2. 5-step shuffle-down tree in the warp;
//               3. lane 0 writes out[row].
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per row.
// Shared mem:   none. Barriers: none.
// Determinism:  bitwise (fixed order for a fixed UNROLL and load path; no atomics).
// Constraints:  BLOCK a multiple of 32 == blockDim.x; gridDim.x == ceil_div(rows, BLOCK/32);
//               rows, cols < 2^31 (row offsets are 64-bit, so rows * cols may exceed 2^31).
#include <epl/body/reduce_group.cuh>
#include <epl/util.cuh>

template <int BLOCK, int UNROLL, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
row_reduce_warp_per_row(const T* __restrict__ x,    // rows x cols, row-major
                        float* __restrict__ out,    // rows
                        int rows, int cols) {
  epl::row_reduce_lane_groups<epl::kWarpThreads, BLOCK, UNROLL, T, Op>(x, out, rows, cols);
}
