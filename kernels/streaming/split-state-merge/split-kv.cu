// Record:       split-state-merge/split-kv (catalog/realizations/split-state-merge/split-kv.yaml)
// Contract:     row-attention-decode — o[r, :] = sum_j softmax(s[r, :])_j v[r, j, :] and lse[r], float32,
//               DIM = 128; an all -inf row gives o = 0, lse = -inf.
// Phases:       two launches (split-KV decoding):
//               1. partials: SPLITS blocks of WARPS warps per row; block k folds keys
//                  [k * chunk, (k + 1) * chunk) online, as online-block does for a whole row, and
//                  writes its unnormalized state (m, l, acc[128]) to scratch (an empty range: the
//                  identity);
//               2. combine (the split-state merge): one warp per row merges its SPLITS states in split
//                  order with the rescaling merge and writes o = acc / l and lse = m + log l.
// Traffic:      reads s and v once; writes and rereads 520 bytes per split per row; writes o, lse.
// Shared mem:   launch 1: WARPS * (8 + 512) bytes static. Barriers: 1 in launch 1.
// Determinism:  bitwise (fixed split boundaries, interleave and merge order; no atomics).
// Constraints:  dim == 128; o 16-byte aligned; blockDim.x: 32 * WARPS, then 128 (combine: 4 warps);
//               gridDim.x: rows * SPLITS, then ceil_div(rows, 4).
#include <epl/body/attention.cuh>

template <int WARPS, int SPLITS, int UNROLL, typename T>
__global__ void __launch_bounds__(32 * WARPS)
attention_split_partials(const T* __restrict__ s,      // rows x cols scores
                         const T* __restrict__ v,      // rows x cols x 128 values
                         float* __restrict__ partials, // rows x SPLITS states (scratch)
                         int cols) {
  epl::attention_rows_split_partials<WARPS, SPLITS, UNROLL, T>(s, v, partials, cols);
}

template <int WARPS, int SPLITS>
__global__ void __launch_bounds__(32 * WARPS)
attention_split_combine(const float* __restrict__ partials,  // rows x SPLITS states
                        float* __restrict__ o,               // rows x 128
                        float* __restrict__ lse,             // rows
                        int rows) {
  epl::attention_rows_combine<WARPS, SPLITS>(partials, o, lse, rows);
}
