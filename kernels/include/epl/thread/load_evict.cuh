// epl/thread/load_evict.cuh — 16-byte loads with an eviction priority in L1 and in L2
// (ld.global.nc.L1::evict_*.L2::cache_hint), as Triton's eviction_policy emits them.
//
// For rows streamed twice (epl/body/reread.cuh): keeping the first pass's lines in L1 and dropping
// the second pass's first; for rows read once into registers (epl/body/resident.cuh): keeping the
// input in L2 so that the output's lines leave first (thread/cache_policy.cuh says why). Apart from
// load.cuh so that kernels that never ask for a priority keep their source hash.
#pragma once

#include "cache_policy.cuh"
#include "load.cuh"

namespace epl {

// Eviction priority of a 16-byte load, the same in L1 and L2 (sm_80+), as Triton's eviction_policy
// emits it: the first pass of a reread row asks to keep its lines (evict_last), the reread, their
// last use, to drop them first (evict_first). kNone is load_16B_aligned. Same HAZARD as
// load_16B_aligned. kShared is no global load at all: the span was staged in shared memory
// (epl/body/staged.cuh) and is read with a plain load through its generic pointer.
enum class Evict { kNone, kEvictFirst, kEvictLast, kShared };

template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned_evict_last(const T* __restrict__ p) {
  Vec16<T> r;
  uint4& u = *reinterpret_cast<uint4*>(&r);
  asm("ld.global.nc.L1::evict_last.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p), "l"(l2_policy_evict_last()));
  return r;
}

template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned_evict_first(const T* __restrict__ p) {
  Vec16<T> r;
  uint4& u = *reinterpret_cast<uint4*>(&r);
  asm("ld.global.nc.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p), "l"(l2_policy_evict_first()));
  return r;
}

template <Evict HINT, typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned_hinted(const T* __restrict__ p) {
  if constexpr (HINT == Evict::kEvictLast) return load_16B_aligned_evict_last(p);
  else if constexpr (HINT == Evict::kEvictFirst) return load_16B_aligned_evict_first(p);
  else if constexpr (HINT == Evict::kShared) return *reinterpret_cast<const Vec16<T>*>(p);
  else return load_16B_aligned(p);
}

}  // namespace epl
