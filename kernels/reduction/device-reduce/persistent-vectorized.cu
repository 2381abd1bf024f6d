// Record:       device-reduce/persistent-vectorized (catalog/realizations/device-reduce/persistent-vectorized.yaml)
// Contract:     device-reduce — ONE float32 result (sum or max) of n elements, float32 accumulation.
// Phases:       one launch of min(ceil_div(n, BLOCK*UNROLL*VEC), sms*per_sm) blocks of BLOCK
//               (a persistent grid: PER_SM blocks per SM; one wave while PER_SM * BLOCK <= 2048
//               threads fit an SM, PER_SM * BLOCK / 2048 waves beyond, which the block scheduler
//               balances across SMs):
//                 1. grid-stride 16-byte vector loads (4 float / 8 bf16), UNROLL in flight per
//                    thread, each vector folded as a tree; scalar head (misaligned x) and tail;
//                 2. block reduction by warp shuffles (one barrier);
//                 3. thread 0 writes partials[blockIdx.x], __threadfence, atomicInc ticket on a
//                    counter in this module's global memory;
//                 4. the block with the last ticket folds all partials in index order (L2 loads)
//                    and writes out[0]; the counter wraps back to 0 for the next launch.
// Traffic:      reads sizeof(T) bytes per element; 4 bytes per block written and read back;
//               one 4-byte atomic per block; writes 4 bytes. One launch, no memset.
// Determinism:  bitwise for a fixed grid and x mod 16.
// Constraints:  BLOCK a power of two in [32, 1024] == blockDim.x; 1 <= n < 2^31; x aligned to
//               sizeof(T) (16-byte aligned is the fast path: CuPy/PyTorch allocations are
//               256-byte aligned; otherwise up to VEC-1 scalar head loads); partials 16-byte
//               aligned (scratch buffers are). HAZARD: the ticket counter is one per loaded
//               module, so two launches of this module must not run concurrently (one stream).
#include <epl/block/reduce_warp_shuffle.cuh>
#include <epl/device/fold_vec16.cuh>
#include <epl/device/last_block.cuh>

// Zero when the module loads; every complete launch leaves it at zero again (atomicInc wraps).
__device__ unsigned device_reduce_persistent_ticket = 0;

// Threads one SM holds at most (sm_80 and sm_90); PER_SM beyond it means several waves.
constexpr int kSmThreads = 2048;

template <int BLOCK, int UNROLL, int PER_SM, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK, (PER_SM < kSmThreads / BLOCK ? PER_SM : kSmThreads / BLOCK))
device_reduce_persistent_vectorized(const T* __restrict__ x,  // n input elements
                                    float* partials,          // one per block
                                    float* __restrict__ out,  // the result
                                    int n) {                  // element count
  using BlockReduce = epl::BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float acc = epl::device::fold_vec16<BLOCK, UNROLL, T, Op>(x, n, blockIdx.x, gridDim.x);
  const float r = BlockReduce(temp).reduce(acc);  // valid in thread 0
  epl::device::finish_in_last_block<BLOCK, Op>(r, partials, &device_reduce_persistent_ticket, out,
                                               blockIdx.x, gridDim.x);
}
