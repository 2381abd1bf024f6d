// epl/device.cuh — everything the blocks of a whole grid do together (and clusters, on sm_90).
#pragma once

#include "device/reduce.cuh"
