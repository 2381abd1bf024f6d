// epl/thread.cuh — everything one thread does alone: operators, conversions, vector loads.
#pragma once

#include "thread/ops.cuh"
#include "thread/convert.cuh"
#include "thread/load.cuh"
#include "thread/welford.cuh"
