// Record:       device-reduce/last-block (catalog/realizations/device-reduce/last-block.yaml)
// Contract:     device-reduce — ONE float32 result (sum or max) of n elements, float32 accumulation.
// Phases:       one launch of min(ceil_div(n, BLOCK*ITEMS), max_blocks) blocks of BLOCK:
//                 1. fold tiles of BLOCK*ITEMS elements dealt round-robin, coalesced scalar loads;
//                 2. block reduction by warp shuffles (one barrier);
//                 3. thread 0 writes partials[blockIdx.x], __threadfence, atomicInc ticket;
//                 4. the block with the last ticket folds all partials in index order (L2 loads)
//                    and writes out[0]; the ticket counter wraps back to 0.
// Traffic:      reads sizeof(T) bytes per element; 4 bytes per block written and read back by
//               the last block; one 4-byte atomic per block; writes 4 bytes.
// Determinism:  bitwise for a fixed grid (partials reduced in index order, whoever is last).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; 1 <= n < 2^31; counter reads 0
//               at launch (a zeroed scratch word); partials 16-byte aligned (scratch buffers are).
#include <epl/block/reduce_warp_shuffle.cuh>
#include <epl/device/fold_tiles.cuh>
#include <epl/device/last_block.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
device_reduce_last_block(const T* __restrict__ x,  // n input elements
                         float* partials,          // one per block (read back by the last block)
                         unsigned* counter,        // ticket counter, 0 at launch and after
                         float* __restrict__ out,  // the result
                         int n) {                  // element count
  using BlockReduce = epl::BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float acc = epl::device::fold_tiles_strided<BLOCK, ITEMS, T, Op>(x, n, blockIdx.x, gridDim.x);
  const float r = BlockReduce(temp).reduce(acc);  // valid in thread 0
  epl::device::finish_in_last_block<BLOCK, Op>(r, partials, counter, out, blockIdx.x, gridDim.x);
}
