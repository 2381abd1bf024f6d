// epl/device/last_block.cuh — last-block-done: every block leaves one partial, the last block to
// finish reduces them all, in one launch.
//
// Protocol (the CUDA samples' threadFenceReduction): thread 0 of each block stores its partial,
// __threadfence() (release: the store is visible device-wide before the ticket), takes a ticket
// with atomicInc on a counter; the block that draws ticket parts-1 is the last, fences again
// (acquire) and, after a barrier, reads every partial through L2 (ld.global.cg: never a stale L1
// line) in index order. No grid-wide barrier, no cooperative launch, no second launch.
// The counter must read 0 at launch; atomicInc(counter, parts - 1) wraps it back to 0 on the last
// ticket, so after every complete launch it reads 0 again.
#pragma once

#include "reduce_partials.cuh"

namespace epl {
namespace device {

// Every thread of the block calls it, converged, AFTER thread 0 stored this block's partial (the
// store must come from thread 0: its fence is what publishes it). Returns true in every thread of
// exactly one block, the last to arrive. Cost per block: 1 fence + 1 atomic in thread 0, 1 barrier.
__device__ __forceinline__ bool arrive_is_last_block(unsigned* counter, unsigned parts) {
  __shared__ int last;
  if (threadIdx.x == 0) {
    __threadfence();  // release: this block's partial before its ticket
    const unsigned ticket = atomicInc(counter, parts - 1);  // parts-1 -> 0: self-resetting
    last = ticket == parts - 1;
    if (last) __threadfence();  // acquire: every other block's partial after the last ticket
  }
  __syncthreads();  // thread 0's verdict (and its acquire) to the whole block
  return last != 0;
}

// The whole finish: thread 0 stores r (this block's partial, valid in thread 0) to
// partials[part]; the last block to arrive reduces partials[0, parts) in index order and writes
// out[0]. Every thread of every block calls it, converged. Bitwise reproducible for a fixed parts.
template <int BLOCK, typename Op>
__device__ __forceinline__ void finish_in_last_block(float r,            // partial, thread 0
                                                     float* partials,    // parts slots
                                                     unsigned* counter,  // 0 at launch
                                                     float* out,         // the result
                                                     unsigned part, unsigned parts, Op op = Op()) {
  if (threadIdx.x == 0) partials[part] = r;
  if (arrive_is_last_block(counter, parts)) {
    reduce_partials_block<BLOCK, Op, LoadCoherentL2>(partials, parts, out, op);
  }
}

}  // namespace device
}  // namespace epl
