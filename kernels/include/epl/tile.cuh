// epl/tile.cuh — operand tiles of matrix products: the shared-memory swizzle, the tile staging and
// the order of output tiles over the grid.
#pragma once

#include "tile/order.cuh"
#include "tile/stage.cuh"
#include "tile/swizzle.cuh"
