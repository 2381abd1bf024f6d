// epl/pipeline.cuh — asynchronous copies into shared memory and their completion.
#pragma once

#include "pipeline/cp_async.cuh"
#include "pipeline/stage_ring.cuh"
#include "pipeline/turns.cuh"
