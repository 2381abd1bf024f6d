// Record:       mergeable-statistics/two-pass (catalog/realizations/mergeable-statistics/two-pass.yaml)
// Contract:     row-moments — mean[r] and var[r] (population, divisor cols), float32, of every row
//               of a row-major [rows, cols] x (float32 or bfloat16).
// Phases:       1. block b owns row b; thread t folds sum x over every BLOCK-th 16-byte vector of
//                  it, UNROLL loads in flight (scalar loads if rows are not 16-byte aligned);
//               2. block all-reduce of the sums (one __syncthreads): mean = sum / cols in every thread;
//               3. the same threads read the row again and fold sum (x - mean)^2;
//               4. block reduction of those (one __syncthreads), thread 0 writes mean[b], var[b].
// Traffic:      reads sizeof(T) bytes per element twice (the second read mostly from L2 for the
//               rows in flight); writes 8 bytes per row. Minimal: one read.
// Shared mem:   2 * 4*BLOCK/32 bytes static. Barriers: 2 per row.
// Determinism:  bitwise (fixed order for a fixed BLOCK, UNROLL and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; 1 <= cols < 2^31.
#include <epl/body/moments.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
row_moments_two_pass_kernel(const T* __restrict__ x,         // rows x cols, row-major
                            float* __restrict__ mean_out,  // rows
                            float* __restrict__ var_out,   // rows
                            int cols) {
  epl::row_moments_two_pass<BLOCK, UNROLL, T>(x, mean_out, var_out, cols);
}
