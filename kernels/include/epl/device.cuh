// epl/device.cuh — everything the blocks of a whole grid do together.
#pragma once

#include "device/atomic_combine.cuh"
#include "device/fold_tiles.cuh"
#include "device/fold_vec16.cuh"
#include "device/last_block.cuh"
#include "device/reduce.cuh"
#include "device/reduce_partials.cuh"
#include "device/sum_slices.cuh"
