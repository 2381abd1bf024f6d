// Record:       online-max-accumulation/online-warp (catalog/realizations/online-max-accumulation/online-warp.yaml)
// Contract:     row-softmax-state — m[r] = max_j x[r, j], l[r] = sum_j exp(x[r, j] - m[r]) (float32),
//               for a row-major [rows, cols] x; an all -inf row gives m = -inf, l = 0.
// Phases:       1. warp w of block b owns row b*BLOCK/32 + w; each lane loads every 32nd 16-byte
//                  vector, UNROLL in flight, and folds each register chunk online (chunk max, one
//                  rescale, one exp per element); scalar loads if rows are not 16-byte aligned;
//               2. warp_allreduce_state: 5 canonical-order butterfly steps of (m, l);
//               3. lane 0 writes m[row], l[row].
// Traffic:      reads sizeof(T) bytes per element once; writes 8 bytes per row.
// Shared mem:   none. Barriers: none.
// Determinism:  bitwise (fixed order for a fixed UNROLL and load path; no atomics).
// Constraints:  BLOCK a multiple of 32 == blockDim.x; gridDim.x == ceil_div(rows, BLOCK/32);
//               rows, cols < 2^31; x finite or -inf (no +inf, no NaN).
#include <epl/body/softmax_state.cuh>
#include <epl/util.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
online_max_accumulation_warp(const T* __restrict__ x,      // rows x cols, row-major
                             float* __restrict__ m_out,    // rows: row max
                             float* __restrict__ l_out,    // rows: sum of exp(x - m)
                             int rows, int cols) {
  epl::row_softmax_state_lane_groups<epl::kWarpThreads, BLOCK, UNROLL, T>(x, m_out, l_out, rows, cols);
}
