// epl/mma.cuh — tensor-core building blocks: mma.sync and warp tiles (sm_80+), warpgroup wgmma and its TMA-fed k loop (sm_90a), split-K summed in a cluster (sm_90).
#pragma once

#include "mma/cluster_split_sum.cuh"
#include "mma/mma_sync.cuh"
#include "mma/tma_wgmma_loop.cuh"
#include "mma/warp_tile.cuh"
#include "mma/wgmma.cuh"
