// epl/warp.cuh — everything the 32 lanes of one warp do together.
#pragma once

#include "warp/reduce.cuh"
#include "warp/reduce_classes.cuh"
#include "warp/reduce_state.cuh"
