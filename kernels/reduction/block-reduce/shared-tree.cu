// Record:       block-reduce/shared-tree (catalog/realizations/block-reduce/shared-tree.yaml)
// Contract:     block-tile-reduce — one float32 partial per tile of BLOCK*ITEMS inputs.
// Phases:       1. load ITEMS strided elements per thread (coalesced) and fold them in registers;
//               2. store one float per thread to shared memory;
//               3. tree over shared memory, sequential addressing, stride BLOCK/2 .. 32, one
//                  __syncthreads per level (log2(BLOCK/32) in all);
//               4. warp 0 finishes strides 16 .. 1 in shared memory with __syncwarp;
//               5. thread 0 writes partials[blockIdx.x].
// Traffic:      reads sizeof(T) bytes per element; writes 4 bytes per BLOCK*ITEMS elements.
// Shared mem:   4*BLOCK bytes static.
// Determinism:  bitwise (fixed order of operations, no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] and == blockDim.x; 1-D grid of
//               ceil_div(n, BLOCK*ITEMS) blocks; 1 <= n < 2^31.
#include <epl/block/reduce_shared_tree.cuh>
#include <epl/harness/block_tile_reduce.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
block_reduce_shared_tree_harness(const T* __restrict__ x,       // n input elements
                                 float* __restrict__ partials,  // one per block
                                 int n) {                       // element count
  epl::harness::block_tile_reduce<epl::BlockReduceSharedTree, BLOCK, ITEMS, T, Op>(x, partials, n);
}
