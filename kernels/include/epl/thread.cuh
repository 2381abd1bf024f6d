// epl/thread.cuh — everything one thread does alone: operators, conversions, vector loads and stores, states.
#pragma once

#include "thread/attention_state.cuh"
#include "thread/cache_policy.cuh"
#include "thread/convert.cuh"
#include "thread/exp.cuh"
#include "thread/load.cuh"
#include "thread/load_evict.cuh"
#include "thread/load_unaligned.cuh"
#include "thread/ops.cuh"
#include "thread/softmax_state.cuh"
#include "thread/store.cuh"
#include "thread/tree.cuh"
#include "thread/welford.cuh"
#include "thread/widen.cuh"
