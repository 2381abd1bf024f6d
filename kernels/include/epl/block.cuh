// epl/block.cuh — everything the threads of one block do together.
#pragma once

#include "block/reduce.cuh"
#include "block/reduce_state.cuh"
