// epl/block.cuh — everything the threads of one block do together (shared memory, barriers, bulk copies).
#pragma once

#include "block/bulk_copy.cuh"
#include "block/mbarrier.cuh"
#include "block/mbarrier_arrive.cuh"
#include "block/reduce.cuh"
#include "block/reduce_raking.cuh"
#include "block/reduce_shared_tree.cuh"
#include "block/reduce_smem_atomics.cuh"
#include "block/reduce_state.cuh"
#include "block/reduce_warp_shuffle.cuh"
#include "block/stage_bulk.cuh"
#include "block/tensor_copy.cuh"
#include "block/warpgroup.cuh"
