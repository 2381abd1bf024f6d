// Record:       streaming-weighted-reduction/online-block (catalog/realizations/streaming-weighted-reduction/online-block.yaml)
// Contract:     row-attention-decode — o[r, :] = sum_j softmax(s[r, :])_j v[r, j, :] and lse[r], float32,
//               DIM = 128; an all -inf row gives o = 0, lse = -inf.
// Phases:       one block of WARPS warps per row, one launch:
//               1. warp w streams keys w, w + WARPS, ...: every lane reads the key's score and its 4 value
//                  components (16 B fp32 / 8 B bf16), UNROLL keys in flight, and folds each round
//                  online into (m, l, acc[4]) (one rescale per round, one exponential per key);
//               2. the WARPS states meet in shared memory (one __syncthreads), merged in warp order by
//                  warp 0;
//               3. warp 0 writes o = acc / l (one 16-byte store per lane) and lse = m + log l.
// Traffic:      reads s and v once; writes 512 + 4 bytes per row.
// Shared mem:   WARPS * (8 + 512) bytes static. Barriers: 1.
// Determinism:  bitwise (fixed key interleave and merge order for fixed WARPS and UNROLL; no atomics).
// Constraints:  blockDim.x == 32 * WARPS; gridDim.x == rows; dim == 128; o 16-byte aligned.
#include <epl/body/attention.cuh>

template <int WARPS, int UNROLL, typename T>
__global__ void __launch_bounds__(32 * WARPS)
attention_online_block(const T* __restrict__ s,  // rows x cols scores
                       const T* __restrict__ v,  // rows x cols x 128 values
                       float* __restrict__ o,    // rows x 128
                       float* __restrict__ lse,  // rows
                       int cols) {
  epl::attention_rows_online_block<WARPS, UNROLL, T>(s, v, o, lse, cols);
}
