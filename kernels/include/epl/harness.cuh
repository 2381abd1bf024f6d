// epl/harness.cuh — measurement harnesses: kernel bodies whose only job is one primitive,
// each the device side of one contract.
#pragma once

#include "harness/block_tile_reduce.cuh"
#include "harness/warp_tile_reduce.cuh"
