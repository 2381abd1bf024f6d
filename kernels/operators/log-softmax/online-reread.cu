// Record:       log-softmax/online-reread (catalog/realizations/log-softmax/online-reread.yaml)
// Contract:     row-log-softmax — y[r, j] = x[r, j] - m[r] - log l[r] in T; an all -inf row gives -inf.
// Phases:       G consecutive threads per row (BLOCK = max(G, 256) threads, BLOCK / G rows per block):
//               1. every thread folds every G-th 16-byte vector of its row online into (m, l), UNROLL
//                  loads in flight, each full round one register chunk (element loads if x or y is
//                  not 16-byte aligned);
//               2. (m, l) all-reduced over the G threads with the rescaling merge (G <= 32: shuffles;
//                  G > 32: warp butterflies, shared slots, one __syncthreads);
//               3. the same threads reread the same vectors (from L2 while the row stayed there)
//                  and store (x - m) - log l, 16 bytes per store.
// Traffic:      reads sizeof(T) bytes per element twice (the second mostly from L2), writes them once.
// Shared mem:   G > 32: 16 * BLOCK / 32 bytes static; none otherwise.
// Determinism:  bitwise (fixed fold and merge order for fixed G, UNROLL and load path; no atomics).
// Registers:    __launch_bounds__ for SM_THREADS threads per SM (1024: up to 64 a thread; 2048: 32).
// Constraints:  G a power of two <= 1024; cols >= 1; gridDim.x == ceil_div(rows, BLOCK / G);
//               x finite or -inf; x and y do not overlap.
#include <epl/body/reread.cuh>
#include <epl/group/lanes.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int G, int UNROLL, int SM_THREADS, typename T, epl::RowPath PATH>
__global__ void __launch_bounds__(epl::row_block_threads(G), epl::row_reread_min_blocks(SM_THREADS, epl::row_block_threads(G)))
log_softmax_online_reread(const T* __restrict__ x,  // rows x cols, row-major
                          T* __restrict__ y,        // rows x cols
                          int rows, int cols) {
  using Group = epl::RowLanes<epl::row_block_threads(G), G>;
  epl::rows_reread<Group, UNROLL, PATH>(epl::LogSoftmaxStreamed{}, x, static_cast<const T*>(nullptr),
                                  static_cast<const T*>(nullptr), y, rows, cols);
}
