// epl/cluster.cuh — what the blocks of one thread-block cluster do together through distributed shared memory.
#pragma once

#include "cluster/dsmem.cuh"
#include "cluster/multicast.cuh"
#include "cluster/reduce_dsmem.cuh"
#include "cluster/row_cluster.cuh"
