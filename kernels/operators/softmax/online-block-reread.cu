// Record:       softmax/online-block-reread (catalog/realizations/softmax/online-block-reread.yaml)
// Contract:     row-softmax — y[r, j] = exp(x[r, j] - m[r]) / l[r] in T, for a row-major [rows, cols] x;
//               an all -inf row gives zeros, a -inf element 0.
// Phases:       1. block b owns row b; thread t loads every BLOCK-th 16-byte vector, UNROLL in
//                  flight, and folds each register chunk online into (m, l); scalar loads if rows
//                  are not 16-byte aligned (the _split entry: each row split by address, a scalar
//                  head and tail around its 16-byte body, where x and y share an offset mod 16);
//               2. BlockAllReduceState of (m, l): warp butterflies, one __syncthreads, butterfly
//                  over the warp states; every thread holds the same bits;
//               3. the same threads reread the same vectors (from L2 while the row stayed there)
//                  and write y = exp_flush(x - shift) * (1/l), 16 bytes per store.
// Traffic:      reads sizeof(T) bytes per element twice, writes them once.
// Shared mem:   8*BLOCK/32 bytes static. Barriers: 1 per row.
// Determinism:  bitwise (fixed order for fixed BLOCK, UNROLL and load path; no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; gridDim.x == rows; cols < 2^31;
//               x finite or -inf (no +inf, no NaN); x and y do not overlap.
#include <epl/body/softmax.cuh>

template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
softmax_online_block_reread(const T* __restrict__ x,  // rows x cols, row-major
                            T* __restrict__ y,        // rows x cols: the softmax of each row
                            int cols) {
  epl::row_softmax_block_reread<BLOCK, UNROLL, T>(x, y, cols);
}

// The split entry (launch.steps[].split_entry): every row split by address around its 16-byte body.
template <int BLOCK, int UNROLL, typename T>
__global__ void __launch_bounds__(BLOCK)
softmax_online_block_reread_split(const T* __restrict__ x,  // rows x cols, row-major
                            T* __restrict__ y,        // rows x cols: the softmax of each row
                            int cols) {
  epl::row_softmax_block_reread<BLOCK, UNROLL, T, epl::kSplitPath>(x, y, cols);
}
