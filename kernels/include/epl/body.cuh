// epl/body.cuh — the kernel bodies: a mapping of rows or tiles to threads, instantiated with a policy.
#pragma once

#include "body/attention.cuh"
#include "body/moments.cuh"
#include "body/reduce.cuh"
#include "body/reduce_block.cuh"
#include "body/reduce_cluster.cuh"
#include "body/reduce_group.cuh"
#include "body/reduce_persistent.cuh"
#include "body/reread.cuh"
#include "body/resident.cuh"
#include "body/resident_pipelined.cuh"
#include "body/softmax.cuh"
#include "body/softmax_state.cuh"
#include "body/staged.cuh"
#include "body/staged_pipelined.cuh"
#include "body/stream.cuh"
