// Record:       block-reduce/raking (catalog/realizations/block-reduce/raking.yaml)
// Contract:     block-tile-reduce — one float32 partial per tile of BLOCK*ITEMS inputs.
// Phases:       1. load ITEMS strided elements per thread (coalesced) and fold them in registers;
//               2. every thread stores its float to shared memory (padded: one word per 32);
//               3. one __syncthreads;
//               4. warp 0 rakes: lane l folds the BLOCK/32 values of segment l sequentially;
//               5. warp 0 finishes with a 5-step shuffle-down tree;
//               6. thread 0 writes partials[blockIdx.x].
// Traffic:      reads sizeof(T) bytes per element; writes 4 bytes per BLOCK*ITEMS elements.
// Shared mem:   4*(BLOCK + BLOCK/32) + 4 bytes static.
// Determinism:  bitwise (fixed order of operations, no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] and == blockDim.x; 1-D grid of
//               ceil_div(n, BLOCK*ITEMS) blocks; 1 <= n < 2^31.
#include <epl/block/reduce_raking.cuh>
#include <epl/harness/block_tile_reduce.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
block_reduce_raking_harness(const T* __restrict__ x,       // n input elements
                            float* __restrict__ partials,  // one per block
                            int n) {                       // element count
  epl::harness::block_tile_reduce<epl::BlockReduceRaking, BLOCK, ITEMS, T, Op>(x, partials, n);
}
