// Record:       online-max-accumulation/two-pass (catalog/realizations/online-max-accumulation/two-pass.yaml)
// Contract:     row-softmax-state — m[r] = max_j x[r, j], l[r] = sum_j exp(x[r, j] - m[r]) (float32),
//               for a row-major [rows, cols] x; an all -inf row gives m = -inf, l = 0.
// Phases:       1. block b owns row b; thread t folds the max of every BLOCK-th 16-byte vector
//                  (UNROLL loads in flight; scalar loads if rows are not 16-byte aligned);
//               2. block all-reduce of the max (one __syncthreads);
//               3. the same threads reread the same vectors and sum exp(x - m);
//               4. block all-reduce of the sum (one __syncthreads, separate shared storage);
//               5. thread 0 writes m[b], l[b].
// Traffic:      reads sizeof(T) bytes per element TWICE (the second read hits L2 only while the
//               rows in flight fit there); writes 8 bytes per row.
// Shared mem:   2*4*BLOCK/32 bytes static. Barriers: 2 per row.
// Determinism:  bitwise (fixed order for a fixed BLOCK, UNROLL and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; cols < 2^31;
//               x finite or -inf (no +inf, no NaN).
#include <epl/body/softmax_state.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
online_max_accumulation_two_pass(const T* __restrict__ x,      // rows x cols, row-major
                                 float* __restrict__ m_out,    // rows: row max
                                 float* __restrict__ l_out,    // rows: sum of exp(x - m)
                                 int cols) {
  epl::row_softmax_state_two_pass_blocks<BLOCK, UNROLL, T>(x, m_out, l_out, cols);
}
