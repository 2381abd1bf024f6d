// Record:       device-reduce/single-pass-atomics (catalog/realizations/device-reduce/single-pass-atomics.yaml)
// Contract:     device-reduce — ONE float32 result (sum or max) of n elements, float32 accumulation.
// Phases:       launch 1 (one thread): out[0] = identity (the output arrives poisoned);
//               launch 2 (min(ceil_div(n, BLOCK*ITEMS), max_blocks) blocks of BLOCK):
//                 1. fold tiles of BLOCK*ITEMS elements dealt round-robin, coalesced scalar loads;
//                 2. block reduction by warp shuffles (one barrier);
//                 3. thread 0 folds the block's partial into out[0] with one float atomic
//                    (sum: RED.ADD.F32; max: signed max / unsigned min on the bits).
// Traffic:      reads sizeof(T) bytes per element once; one 4-byte atomic per block on one address.
// Determinism:  sum run-to-run-varying (blocks arrive in any order); max bitwise (exact, order-free).
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; 1 <= n < 2^31.
#include <epl/block/reduce_warp_shuffle.cuh>
#include <epl/device/atomic_combine.cuh>
#include <epl/device/fold_tiles.cuh>

template <typename Op>
__global__ void device_reduce_atomics_init(float* __restrict__ out) {  // the result
  out[0] = Op::identity();
}

template <int BLOCK, int ITEMS, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK)
device_reduce_atomics(const T* __restrict__ x,  // n input elements
                      float* out,               // the result, identity() on entry
                      int n) {                  // element count
  using BlockReduce = epl::BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float acc = epl::device::fold_tiles_strided<BLOCK, ITEMS, T, Op>(x, n, blockIdx.x, gridDim.x);
  const float r = BlockReduce(temp).reduce(acc);  // valid in thread 0
  if (threadIdx.x == 0) epl::device::atomic_combine(out, r, Op());
}
