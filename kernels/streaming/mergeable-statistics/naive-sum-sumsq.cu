// Record:       mergeable-statistics/naive-sum-sumsq (catalog/realizations/mergeable-statistics/naive-sum-sumsq.yaml)
// Contract:     row-moments — mean[r] and var[r] (population, divisor cols), float32, of every row
//               of a row-major [rows, cols] x (float32 or bfloat16).
// CAUTIONARY:   var = E[x^2] - E[x]^2 in float32 cancels catastrophically when |mean| >> std
//               (relative error about eps * (mean/std)^2): kept to measure that error, not to use.
// Phases:       1. block b owns row b; thread t folds (sum x, sum x^2) over every BLOCK-th 16-byte
//                  vector of it, UNROLL loads in flight (scalar loads if rows are not aligned);
//               2. block all-reduce of the pairs (one __syncthreads);
//               3. thread 0 writes mean = sum / cols and var = sumsq / cols - mean^2 (unclamped).
// Traffic:      reads sizeof(T) bytes per element once; writes 8 bytes per row.
// Shared mem:   8*BLOCK/32 bytes static. Barriers: 1 per row.
// Determinism:  bitwise (fixed order for a fixed BLOCK, UNROLL and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; 1 <= cols < 2^31.
#include <epl/body/moments.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
row_moments_naive_sum_sumsq_kernel(const T* __restrict__ x,         // rows x cols, row-major
                                   float* __restrict__ mean_out,  // rows
                                   float* __restrict__ var_out,   // rows
                                   int cols) {
  epl::row_moments_naive_sum_sumsq<BLOCK, UNROLL, T>(x, mean_out, var_out, cols);
}
