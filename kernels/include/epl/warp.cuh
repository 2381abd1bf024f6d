// epl/warp.cuh — everything the 32 lanes of one warp do together.
#pragma once

#include "warp/reduce.cuh"
#include "warp/reduce_butterfly.cuh"
#include "warp/reduce_classes.cuh"
#include "warp/reduce_redux.cuh"
#include "warp/reduce_shfl_down.cuh"
#include "warp/reduce_shuffle_classes.cuh"
#include "warp/reduce_smem_tree.cuh"
#include "warp/reduce_state.cuh"
