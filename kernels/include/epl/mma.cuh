// epl/mma.cuh — tensor-core building blocks: one warp's mma.sync instructions and warp tiles.
#pragma once

#include "mma/mma_sync.cuh"
#include "mma/warp_tile.cuh"
