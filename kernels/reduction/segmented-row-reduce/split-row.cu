// Record:       segmented-row-reduce/split-row (catalog/realizations/segmented-row-reduce/split-row.yaml)
// Contract:     row-reduce — out[r] = op over x[r, 0:cols], float32, for a row-major [rows, cols] x.
// Phases:       launch 1 (partials), grid rows * splits, splits = ceil_div(cols, CHUNK):
//               1. block b owns slice b % splits (CHUNK elements, the last one ragged) of row
//                  b / splits; thread t folds every BLOCK-th 16-byte vector of it, UNROLL loads
//                  in flight (scalar loads if rows are not 16-byte aligned);
//               2. block reduction by two levels of warp shuffles, one __syncthreads;
//               3. thread 0 writes partials[b] (scratch, float32 [rows, splits]).
//               launch 2 (finish), one warp per row of partials:
//               4. each lane folds every 32nd partial of its row; 5-step shuffle-down tree;
//               5. lane 0 writes out[row].
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per slice to scratch and
//               reads them back (4 / (CHUNK * sizeof(T)) of the input); writes 4 bytes per row.
// Shared mem:   4*BLOCK/32 bytes static (launch 1). Barriers: 1 per slice.
// Determinism:  bitwise (fixed order for fixed BLOCK, CHUNK, UNROLL and load path; no atomics).
// Constraints:  CHUNK % 8 == 0; BLOCK a power of two in [32, 1024] == blockDim.x;
//               rows * ceil_div(cols, CHUNK) < 2^31 blocks; FINISH_BLOCK a multiple of 32.
#include <epl/body/reduce_block.cuh>
#include <epl/body/reduce_group.cuh>
#include <epl/util.cuh>

template <int BLOCK, int CHUNK, int UNROLL, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
row_reduce_split_row_partials(const T* __restrict__ x,         // rows x cols, row-major
                              float* __restrict__ partials,    // rows x ceil_div(cols, CHUNK)
                              int cols) {
  epl::row_reduce_split_partials<BLOCK, CHUNK, UNROLL, T, Op>(x, partials, cols);
}

template <int FINISH_BLOCK, typename Op>
__global__ void __launch_bounds__(FINISH_BLOCK)
row_reduce_split_row_finish(const float* __restrict__ partials,  // rows x splits
                            float* __restrict__ out,             // rows
                            int rows, int splits) {
  epl::row_reduce_lane_groups<epl::kWarpThreads, FINISH_BLOCK, 4, float, Op>(partials, out, rows, splits);
}
