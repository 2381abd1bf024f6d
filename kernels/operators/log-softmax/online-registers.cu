// Record:       log-softmax/online-registers (catalog/realizations/log-softmax/online-registers.yaml)
// Contract:     row-log-softmax — y[r, j] = x[r, j] - m[r] - log l[r] in T; an all -inf row gives -inf.
// Phases:       G consecutive threads per row, BATCH rows per group (BLOCK = max(G, MIN_BLOCK) threads,
//               BATCH * BLOCK / G rows per block):
//               1. every thread loads its ITEMS elements of each of its BATCH rows as 16-byte vectors (lane, lane + G, ...; all
//                  loads in flight at once; element loads if the arrays are not 16-byte aligned);
//               2. the row's constants from registers, all-reduced over the G threads
//                  (G <= 32: shuffles; G > 32: warp butterflies, shared slots, __syncthreads);
//               3. every element rewritten from registers and stored, 16 bytes per store;
//                  rows of a batch computed one after the other, loads of all in flight first.
// Traffic:      reads and writes sizeof(T) bytes per element once.
// Shared mem:   G > 32: 16 * BLOCK / 32 bytes static; none otherwise.
// Determinism:  bitwise (fixed merge order for a fixed G and ITEMS; no atomics).
// Constraints:  G a power of two <= 1024; cols <= G * ITEMS (the record's domain);
//               gridDim.x == ceil_div(rows, BATCH * BLOCK / G); x and y do not overlap.
#include <epl/body/resident.cuh>
#include <epl/group/lanes.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/ops.cuh>

template <int G, int ITEMS, int BATCH, int MIN_BLOCK, typename T, epl::RowPath PATH>
__global__ void __launch_bounds__(epl::row_block_threads(G, MIN_BLOCK), epl::row_min_blocks(epl::row_block_threads(G, MIN_BLOCK)))
log_softmax_online_registers(const T* __restrict__ x,  // rows x cols, row-major
                 T* __restrict__ y,        // rows x cols
                 int rows, int cols) {
  using Group = epl::RowLanes<epl::row_block_threads(G, MIN_BLOCK), G>;
  epl::rows_in_registers<Group, ITEMS, T, BATCH, PATH>(epl::LogSoftmaxRow{}, x, nullptr, nullptr, y, rows, cols);
}
