// epl/tile.cuh — tiles staged through shared memory: operand tiles of matrix products (the
// shared-memory swizzle, the tile staging, the order of output tiles over the grid) and the tiles of
// a layout change (shared_tile.cuh, transpose.cuh).
#pragma once

#include "tile/order.cuh"
#include "tile/shared_tile.cuh"
#include "tile/stage.cuh"
#include "tile/swizzle.cuh"
#include "tile/transpose.cuh"
