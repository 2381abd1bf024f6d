// Record:       online-max-accumulation/online-block (catalog/realizations/online-max-accumulation/online-block.yaml)
// Contract:     row-softmax-state — m[r] = max_j x[r, j], l[r] = sum_j exp(x[r, j] - m[r]) (float32),
//               for a row-major [rows, cols] x; an all -inf row gives m = -inf, l = 0.
// Phases:       1. block b owns row b; thread t loads every BLOCK-th 16-byte vector, UNROLL in
//                  flight, and folds each UNROLL-vector register chunk online (chunk max, one
//                  rescale, one exp per element); scalar loads if rows are not 16-byte aligned;
//               2. BlockAllReduceState: canonical-order butterfly of (m, l) per warp, warp states
//                  through shared memory, one __syncthreads, butterfly over the warp states;
//               3. thread 0 writes m[b], l[b].
// Traffic:      reads sizeof(T) bytes per element once; writes 8 bytes per row.
// Shared mem:   8*BLOCK/32 bytes static. Barriers: 1 per row.
// Determinism:  bitwise (fixed order for a fixed BLOCK, UNROLL and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; cols < 2^31;
//               x finite or -inf (no +inf, no NaN).
#include <epl/body/softmax_state.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
online_max_accumulation_block(const T* __restrict__ x,      // rows x cols, row-major
                              float* __restrict__ m_out,    // rows: row max
                              float* __restrict__ l_out,    // rows: sum of exp(x - m)
                              int cols) {
  epl::row_softmax_state_blocks<BLOCK, UNROLL, T>(x, m_out, l_out, cols);
}
