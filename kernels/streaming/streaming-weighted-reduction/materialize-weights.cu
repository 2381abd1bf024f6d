// Record:       streaming-weighted-reduction/materialize-weights (catalog/realizations/streaming-weighted-reduction/materialize-weights.yaml)
// Contract:     row-attention-decode — o[r, :] = sum_j softmax(s[r, :])_j v[r, j, :] and lse[r], float32,
//               DIM = 128; an all -inf row gives o = 0, lse = -inf.
// Phases:       three launches:
//               1. weights: a block of BLOCK threads per row folds s online into (m, l) (the verified
//                  online-max-accumulation fold), rereads s and writes p = exp(s - m) / l (float32,
//                  rows x cols scratch) and lse;
//               2. reduce: SPLITS blocks of WARPS warps per row; each warp streams its keys' weights and
//                  values (UNROLL keys in flight) into plain sums acc += p v; warps merged in shared
//                  memory; each block writes its partial sum (scratch);
//               3. combine: one warp per row adds the SPLITS partials in split order and writes o.
// Traffic:      reads s twice and v once, writes and rereads p (4 * rows * cols bytes) and the partials.
// Shared mem:   launch 1: 8 * BLOCK / 32 bytes; launch 2: WARPS * (8 + 512) bytes. Barriers: 1 each.
// Determinism:  bitwise (fixed orders for fixed BLOCK, WARPS, SPLITS, UNROLL; no atomics).
// Constraints:  dim == 128; o 16-byte aligned; BLOCK a power of two in [32, 1024]; blockDim.x:
//               BLOCK, 32 * WARPS, 128 (combine: 4 warps); gridDim.x: rows, rows * SPLITS, ceil_div(rows, 4).
#include <epl/body/attention.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
attention_weights(const T* __restrict__ s,  // rows x cols scores
                  float* __restrict__ p,    // rows x cols weights (scratch)
                  float* __restrict__ lse,  // rows
                  int cols) {
  epl::attention_rows_weights<BLOCK, UNROLL, T>(s, p, lse, cols);
}

template <int WARPS, int SPLITS, int UNROLL, typename T>
__global__ void __launch_bounds__(32 * WARPS)
attention_weighted_sums(const float* __restrict__ p,  // rows x cols weights
                        const T* __restrict__ v,      // rows x cols x 128 values
                        float* __restrict__ partials, // rows x SPLITS partial states (scratch)
                        int cols) {
  epl::weighted_rows_split_sums<WARPS, SPLITS, UNROLL, T>(p, v, partials, cols);
}

template <int WARPS, int SPLITS>
__global__ void __launch_bounds__(32 * WARPS)
attention_weighted_combine(const float* __restrict__ partials,  // rows x SPLITS partial sums
                           float* __restrict__ o,               // rows x 128
                           int rows) {
  epl::weighted_rows_combine<WARPS, SPLITS>(partials, o, rows);
}
