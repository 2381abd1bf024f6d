// epl/tile.cuh — tiles staged through shared memory: operand tiles of matrix products (the swizzle,
// the staging, the order of output tiles over the grid) and the tiles a block transposes.
#pragma once

#include "tile/order.cuh"
#include "tile/persistent.cuh"
#include "tile/shared_tile.cuh"
#include "tile/stage.cuh"
#include "tile/swizzle.cuh"
#include "tile/transpose.cuh"
