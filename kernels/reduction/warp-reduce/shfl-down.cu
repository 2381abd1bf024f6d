// Record:       warp-reduce/shfl-down (catalog/realizations/warp-reduce/shfl-down.yaml)
// Contract:     warp-tile-reduce — one float32 partial per warp tile of 32*ITEMS inputs.
// Phases:       1. load the warp's tile (16-byte vectors when ITEMS allows, else coalesced
//                  scalars) and fold ITEMS values per lane in float32 registers;
//               2. 5-step shuffle-down tree (SHFL.DOWN + op), result in lane 0;
//               3. lane 0 writes partials[w].
// Traffic:      reads sizeof(T) bytes per element; writes 4 bytes per 32*ITEMS elements.
// Shared mem:   none (an empty TempStorage per warp).
// Determinism:  bitwise (fixed order of operations, no atomics).
// Constraints:  BLOCK a multiple of 32, <= 1024, == blockDim.x; 1-D grid of
//               ceil_div(ceil_div(n, 32*ITEMS), BLOCK/32) blocks; 1 <= n < 2^31.
#include <epl/harness/warp_tile_reduce.cuh>
#include <epl/warp/reduce_shuffle_classes.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
warp_reduce_shfl_down_harness(const T* __restrict__ x,                                                 // n inputs
                              typename epl::harness::WarpTileAccum<T, Op>::type* __restrict__ partials,  // one per warp
                              int n) {                                                                 // element count
  epl::harness::warp_tile_reduce<epl::WarpReduceShflDown, BLOCK, ITEMS, T, Op>(x, partials, n);
}
