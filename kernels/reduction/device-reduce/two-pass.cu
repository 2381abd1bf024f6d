// Record:       device-reduce/two-pass (catalog/realizations/device-reduce/two-pass.yaml)
// Contract:     device-reduce — ONE float32 result (sum or max) of n elements, float32 accumulation.
// Phases:       launch 1 (min(ceil_div(n, BLOCK*ITEMS), max_blocks) blocks of BLOCK):
//                 1. fold tiles of BLOCK*ITEMS elements dealt round-robin, coalesced scalar loads;
//                 2. block reduction by warp shuffles (one barrier);
//                 3. thread 0 writes partials[blockIdx.x];
//               launch 2 (one block of 1024):
//                 4. fold the partials with 16-byte loads, block reduction, thread 0 writes out[0].
// Traffic:      reads sizeof(T) bytes per element; 4 bytes per block written, then read again;
//               writes 4 bytes.
// Determinism:  bitwise for a fixed grid (fixed order of operations, no atomics).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; 1 <= n < 2^31; partials
//               16-byte aligned for the vector path of launch 2 (scratch buffers are).
#include <epl/block/reduce_warp_shuffle.cuh>
#include <epl/device/fold_tiles.cuh>
#include <epl/device/reduce_partials.cuh>

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
device_reduce_two_pass_partials(const T* __restrict__ x,       // n input elements
                                float* __restrict__ partials,  // one per block
                                int n) {                       // element count
  using BlockReduce = epl::BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float acc = epl::device::fold_tiles_strided<BLOCK, ITEMS, T, Op>(x, n, blockIdx.x, gridDim.x);
  const float r = BlockReduce(temp).reduce(acc);  // valid in thread 0
  if (threadIdx.x == 0) partials[blockIdx.x] = r;
}

template <int BLOCK, typename Op>
__global__ void __launch_bounds__(BLOCK)
device_reduce_two_pass_finish(const float* __restrict__ partials,  // m partials of launch 1
                              int m,                               // partial count
                              float* __restrict__ out) {           // the result
  epl::device::reduce_partials_block<BLOCK, Op>(partials, m, out);
}
