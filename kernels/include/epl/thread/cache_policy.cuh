// epl/thread/cache_policy.cuh — L2 eviction policies (createpolicy, sm_80+) for the operand of a
// load's or a bulk copy's .L2::cache_hint.
//
// Why a row kernel asks L2 to keep its input (evict_last): the rows it reads are never read again
// by another block, yet marking them evict_last makes L2 pick the output's lines first when it
// needs room, so y drains to DRAM while x streams in. Measured on the H200
// (experiment 0027-triton-ab): the same Triton row kernel with only the L2 policy operands
// removed from its PTX runs 2.0-3.4% slower; with its input marked evict_first instead, 3-4% slower.
#pragma once

namespace epl {

// A policy covering every line the access touches (fraction 1.0). Pure: the compiler may hoist and
// share it between loads.
__device__ __forceinline__ unsigned long long l2_policy_evict_last() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

__device__ __forceinline__ unsigned long long l2_policy_evict_first() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

}  // namespace epl
