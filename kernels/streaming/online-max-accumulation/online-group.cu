// Record:       online-max-accumulation/online-group (catalog/realizations/online-max-accumulation/online-group.yaml)
// Contract:     row-softmax-state — m[r] = max_j x[r, j], l[r] = sum_j exp(x[r, j] - m[r]) (float32),
//               for a row-major [rows, cols] x; an all -inf row gives m = -inf, l = 0.
// Phases:       1. each aligned group of GROUP lanes (GROUP < 32) owns one row, BLOCK/GROUP rows
//                  per block; each lane loads every GROUP-th 16-byte vector, UNROLL in flight,
//                  and folds each register chunk online; scalar loads if rows are not aligned;
//               2. warp_allreduce_state<GROUP>: log2(GROUP) canonical-order butterfly steps;
//               3. the group's first lane writes m[row], l[row].
// Traffic:      reads sizeof(T) bytes per element once; writes 8 bytes per row.
// Shared mem:   none. Barriers: none.
// Determinism:  bitwise (fixed order for a fixed GROUP, UNROLL and load path; no atomics).
// Constraints:  GROUP a power of two <= 32; BLOCK a multiple of 32 == blockDim.x;
//               gridDim.x == ceil_div(rows, BLOCK/GROUP); rows, cols < 2^31;
//               x finite or -inf (no +inf, no NaN).
#include <epl/body/softmax_state.cuh>

template <int GROUP, int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
online_max_accumulation_group(const T* __restrict__ x,      // rows x cols, row-major
                              float* __restrict__ m_out,    // rows: row max
                              float* __restrict__ l_out,    // rows: sum of exp(x - m)
                              int rows, int cols) {
  epl::row_softmax_state_lane_groups<GROUP, BLOCK, UNROLL, T>(x, m_out, l_out, rows, cols);
}
