// epl/tile.cuh — tiles staged through shared memory and what blocks do with them (tile staging).
#pragma once

#include "tile/shared_tile.cuh"
#include "tile/transpose.cuh"
