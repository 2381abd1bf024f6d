// Record:       mergeable-statistics/welford-chan (catalog/realizations/mergeable-statistics/welford-chan.yaml)
// Contract:     row-moments — mean[r] and var[r] (population, divisor cols), float32, of every row
//               of a row-major [rows, cols] x (float32 or bfloat16).
// Phases:       1. block b owns row b (SHIFT: every thread also loads x[b, 0], the pivot, by one
//                  broadcast load); thread t loads every BLOCK-th 16-byte vector of the row,
//                  UNROLL in flight; each full round of UNROLL vectors (UNROLL * 16 / sizeof(T)
//                  values, minus the pivot) becomes a (count, mean, M2) state by an in-register
//                  two-pass and is merged into the thread's state by Chan's formula (one division
//                  per round); the ragged round merges per vector; unaligned rows push per element
//                  (Welford's update);
//               2. Chan merge across the block: canonical-order butterfly per warp, warp states
//                  through shared memory, one __syncthreads, butterfly over the warp states;
//               3. thread 0 writes mean = state.mean + pivot and var = M2 / count.
// Traffic:      reads sizeof(T) bytes per element once; writes 8 bytes per row.
// Shared mem:   12*BLOCK/32 bytes static. Barriers: 1 per row.
// Determinism:  bitwise (fixed order for a fixed BLOCK, UNROLL, SHIFT and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; 1 <= cols < 2^24
//               (float32 counts are exact up to 2^24).
#include <epl/body/moments.cuh>

template <int BLOCK, int UNROLL, bool SHIFT, typename T>
__global__ void __launch_bounds__(BLOCK)
row_moments_welford_chan_kernel(const T* __restrict__ x,         // rows x cols, row-major
                                float* __restrict__ mean_out,  // rows
                                float* __restrict__ var_out,   // rows
                                int cols) {
  epl::row_moments_welford_chan<BLOCK, UNROLL, SHIFT, T>(x, mean_out, var_out, cols);
}
