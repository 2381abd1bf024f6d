// epl/mma.cuh — tensor-core building blocks: mma.sync and warp tiles (sm_80+), warpgroup wgmma and its TMA-fed k loop (sm_90a).
#pragma once

#include "mma/mma_sync.cuh"
#include "mma/tma_wgmma_loop.cuh"
#include "mma/warp_tile.cuh"
#include "mma/wgmma.cuh"
