// epl/policy.cuh — the operators the bodies are instantiated with (softmax, norms, cross-entropy, ...).
#pragma once

#include "policy/ops.cuh"
#include "policy/shifted_sums.cuh"
#include "policy/streamed.cuh"
#include "policy/two_reductions.cuh"
#include "policy/values.cuh"
