// epl/device/reduce.cuh — device-wide reduction: the pieces and how they compose.
//
// Scope: every block of a grid (and, for cluster pieces, the blocks of a thread-block cluster).
// A device-wide reduction of n elements to ONE float32 is three choices, each a piece here:
//
//   1. which elements a thread folds (the grid level's load pattern)
//        fold_tiles_strided  fold_tiles.cuh   tiles of BLOCK*ITEMS dealt round-robin to blocks,
//                                             coalesced scalar loads, ITEMS*sizeof(T) bytes in
//                                             flight per thread
//        fold_vec16          fold_vec16.cuh   grid-stride 16-byte vectors, UNROLL*16 bytes in
//                                             flight per thread, scalar head and tail
//   2. the block level: any epl/block reduction (BlockReduceWarpShuffle here), thread 0 valid
//   3. how block partials become one value
//        two launches        reduce_partials.cuh      partials[b]; a second launch of one block
//                                                     reduces them (reduce_partials_block)
//        atomics             atomic_combine.cuh       one float atomic per block on the result;
//                                                     run-to-run-varying bits for Sum
//        last block          last_block.cuh           partials[b], fence, ticket; the last block
//                                                     reduces them (finish_in_last_block)
//        cluster + 2 launches cluster_reduce_dsmem.cuh the blocks of a cluster combine through
//                                                     distributed shared memory first (sm_90)
//
// Which composition wins where is measured (catalog/realizations/device-reduce/*.yaml, evidence/),
// not decided here.
#pragma once

#include "atomic_combine.cuh"
#include "fold_tiles.cuh"
#include "fold_vec16.cuh"
#include "last_block.cuh"
#include "reduce_partials.cuh"
#include "../cluster/reduce_dsmem.cuh"
