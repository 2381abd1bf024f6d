// Record:       warp-reduce/redux-sync (catalog/realizations/warp-reduce/redux-sync.yaml)
// Contract:     warp-tile-reduce — one int32 partial per warp tile of 32*ITEMS int32 inputs.
// Phases:       1. load the warp's tile (16-byte vectors when ITEMS is a multiple of 4, else
//                  coalesced scalars) and fold ITEMS values per lane in int32 registers (sum
//                  wraps modulo 2^32, max is signed);
//               2. one redux.sync (__reduce_add_sync / __reduce_max_sync; SASS REDUX), result
//                  in every lane;
//               3. lane (w mod 32) writes partials[w].
// Traffic:      reads 4 bytes per element; writes 4 bytes per 32*ITEMS elements.
// Shared mem:   none.
// Determinism:  bitwise (integer arithmetic is exact and associative).
// Constraints:  int32 inputs only; sm_80 or later; BLOCK a multiple of 32, <= 1024,
//               == blockDim.x; 1-D grid of ceil_div(ceil_div(n, 32*ITEMS), BLOCK/32) blocks;
//               1 <= n < 2^31.
#include <epl/harness/warp_tile_reduce.cuh>
#include <epl/warp/reduce_redux.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
warp_reduce_redux_sync_harness(const T* __restrict__ x,                                                 // n inputs
                               typename epl::harness::WarpTileAccum<T, Op>::type* __restrict__ partials,  // one per warp
                               int n) {                                                                 // element count
  epl::harness::warp_tile_reduce<epl::WarpReduceRedux, BLOCK, ITEMS, T, Op>(x, partials, n);
}
