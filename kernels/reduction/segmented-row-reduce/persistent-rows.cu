// Record:       segmented-row-reduce/persistent-rows (catalog/realizations/segmented-row-reduce/persistent-rows.yaml)
// Contract:     row-reduce — out[r] = op over x[r, 0:cols], float32, for a row-major [rows, cols] x.
// Phases:       a persistent grid of G = ceil_div(rows, ceil_div(rows, sms * THREADS_PER_SM / BLOCK))
//               blocks (one wave, an equal share of rows per block); block b takes rows b, b + G, ...:
//                 1. the block walks its rows as tiles of BLOCK * UNROLL 16-byte vectors, issuing the
//                    next tile's loads (across row ends) before folding the current one;
//                 2. at a row's last tile: warp shuffle trees, one __syncthreads, warp 0's tree;
//                    thread 0 writes out[row].
//               Rows not 16-byte aligned: the block-per-row fold in a grid-stride loop (scalar loads).
// Traffic:      reads sizeof(T) bytes per element once; writes 4 bytes per row.
// Shared mem:   2 * 4 * BLOCK / 32 bytes static. Barriers: 1 per row.
// Determinism:  bitwise (fixed order; agrees bit for bit with block-per-row at the same BLOCK and
//               UNROLL on the vector path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; 1 <= gridDim.x <= rows; cols < 2^31.
#include <epl/body/reduce_persistent.cuh>

template <int BLOCK, int UNROLL, int THREADS_PER_SM, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK, THREADS_PER_SM / BLOCK)
row_reduce_persistent_rows(const T* __restrict__ x,  // rows x cols, row-major
                           float* __restrict__ out,  // rows
                           int rows, int cols) {
  epl::row_reduce_persistent<BLOCK, UNROLL, T, Op>(x, out, rows, cols);
}
