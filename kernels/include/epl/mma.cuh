// epl/mma.cuh — tensor-core building blocks: mma.sync and warp tiles (sm_80+), warpgroup wgmma (sm_90a).
#pragma once

#include "mma/mma_sync.cuh"
#include "mma/warp_tile.cuh"
#include "mma/wgmma.cuh"
