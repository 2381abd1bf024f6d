// Record:       softmax/online-register-warp (catalog/realizations/softmax/online-register-warp.yaml)
// Contract:     row-softmax — y[r, j] = exp(x[r, j] - m[r]) / l[r] in T, for a row-major [rows, cols] x;
//               an all -inf row gives zeros, a -inf element 0.
// Phases:       1. warp w of block b owns row b*BLOCK/32 + w; each lane loads its K elements (K/N
//                  16-byte vectors lane, lane+32, ...; scalar loads if rows are not 16-byte
//                  aligned) into registers, padded with -inf, and folds them as one chunk into (m, l);
//               2. warp_allreduce_state: 5 canonical-order butterfly steps of (m, l);
//               3. y = __expf(x - shift) * (1/l) from the registers, one 16-byte store per vector.
//               Rows longer than 32*K: online fold (unroll 4), butterfly, then a reread to write y.
// Traffic:      reads and writes sizeof(T) bytes per element once (cols <= 32*K); cols > 32*K
//               reads twice.
// Shared mem:   none. Barriers: none.
// Determinism:  bitwise (fixed order for fixed K and load path; no atomics).
// Constraints:  BLOCK a multiple of 32 == blockDim.x; gridDim.x == ceil_div(rows, BLOCK/32);
//               rows, cols < 2^31; x finite or -inf (no +inf, no NaN); x and y do not overlap.
#include <epl/row/softmax.cuh>

template <int BLOCK, int K, typename T>
__global__ void __launch_bounds__(BLOCK)
softmax_online_register_warp(const T* __restrict__ x,  // rows x cols, row-major
                             T* __restrict__ y,        // rows x cols: the softmax of each row
                             int rows, int cols) {
  epl::row_softmax_warp_registers<BLOCK, K, T>(x, y, rows, cols);
}
