// Record:       rmsnorm/reread (catalog/realizations/rmsnorm/reread.yaml)
// Contract:     row-rmsnorm — y[r, j] = x[r, j] * rsqrt(mean_j x[r, j]^2 + eps) * weight[j] in T.
// Phases:       G consecutive threads per row (BLOCK = max(G, 256) threads, BLOCK / G rows per block):
//               1. every thread folds the sum of squares of every G-th 16-byte vector of its row,
//                  UNROLL loads in flight (element loads if an array is not 16-byte aligned);
//               2. the sum all-reduced over the G threads (G <= 32: shuffles; G > 32: warp
//                  butterflies, shared slots, one __syncthreads); rstd = rsqrt(ss / cols + eps);
//               3. the same threads reread the same vectors (from L2 while the row stayed there)
//                  and store x * rstd * weight, 16 bytes per store.
// Traffic:      reads sizeof(T) bytes per element twice (the second mostly from L2), writes them once;
//               weight once per row from L1/L2.
// Shared mem:   G > 32: 16 * BLOCK / 32 bytes static; none otherwise.
// Determinism:  bitwise (fixed fold and merge order for fixed G, UNROLL and load path; no atomics).
// Registers:    __launch_bounds__ for SM_THREADS threads per SM (1024: up to 64 a thread; 2048: 32).
// Constraints:  G a power of two <= 1024; cols >= 1; gridDim.x == ceil_div(rows, BLOCK / G);
//               x and y do not overlap.
#include <epl/body/reread.cuh>
#include <epl/group/lanes.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int G, int UNROLL, int SM_THREADS, typename T, epl::RowPath PATH>
__global__ void __launch_bounds__(epl::row_block_threads(G), epl::row_reread_min_blocks(SM_THREADS, epl::row_block_threads(G)))
rmsnorm_reread(const T* __restrict__ x,       // rows x cols, row-major
               const T* __restrict__ weight,  // cols
               T* __restrict__ y,             // rows x cols
               int rows, int cols, float eps) {
  using Group = epl::RowLanes<epl::row_block_threads(G), G>;
  epl::rows_reread<Group, UNROLL, PATH>(epl::RmsNormStreamed{{eps}}, x, weight, static_cast<const T*>(nullptr), y, rows, cols);
}
