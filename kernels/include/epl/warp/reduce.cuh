// epl/warp/reduce.cuh — warp-wide reduction: the algorithms and how to choose.
//
// Scope: the 32 lanes of one warp, communicating through register shuffles only (no shared
// memory, no barrier). Both algorithms take log2(WIDTH) shuffles; they differ in who holds
// the answer:
//
//   warp_reduce_shfl_down<WIDTH>(v, op)  result in the group's first lane only
//   warp_reduce_butterfly<WIDTH>(v, op)  result in every lane, identical bits
//
// Both are used by the block reductions in epl/block/.
#pragma once

#include "reduce_shfl_down.cuh"
#include "reduce_butterfly.cuh"
