// Record:       block-reduce/smem-atomics (catalog/realizations/block-reduce/smem-atomics.yaml)
// Contract:     block-tile-reduce — one float32 partial per tile of BLOCK*ITEMS inputs.
// Phases:       1. load ITEMS strided elements per thread (coalesced) and fold them in registers;
//               2. thread 0 stores the identity in one shared float; __syncthreads;
//               3. FROM = warp: 5-step shuffle-down tree, lane 0 of each warp combines atomically;
//                  FROM = thread: every thread combines its own value atomically;
//                  (Sum: atomicAdd, a CAS loop; Max: atomicMax/atomicMin on the float's bits)
//               4. __syncthreads; thread 0 writes partials[blockIdx.x].
// Traffic:      reads sizeof(T) bytes per element; writes 4 bytes per BLOCK*ITEMS elements.
// Shared mem:   4 bytes static.
// Determinism:  run-to-run-varying for sum (the atomics' order follows scheduling); max is
//               order-independent and bitwise reproducible.
// Constraints:  BLOCK a power of two in [32, 1024] and == blockDim.x; 1-D grid of
//               ceil_div(n, BLOCK*ITEMS) blocks; 1 <= n < 2^31.
#include <epl/block/reduce_smem_atomics.cuh>
#include <epl/harness/block_tile_reduce.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op, epl::SmemAtomicsFrom FROM>
__global__ void __launch_bounds__(BLOCK)
block_reduce_smem_atomics_harness(const T* __restrict__ x,       // n input elements
                                  float* __restrict__ partials,  // one per block
                                  int n) {                       // element count
  epl::harness::block_tile_reduce<epl::BlockReduceSmemAtomicsFrom<FROM>::template of, BLOCK, ITEMS, T, Op>(
      x, partials, n);
}
