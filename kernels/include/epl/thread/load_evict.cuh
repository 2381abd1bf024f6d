// epl/thread/load_evict.cuh — 16-byte loads with an L1 eviction priority (ld.global.nc.L1::evict_*).
//
// For rows streamed twice (epl/row/reread.cuh): keeping the first pass's lines in L1 and dropping
// the second pass's first. Apart from load.cuh so that kernels that never ask for a priority keep
// their source hash, and with it their evidence.
#pragma once

#include "load.cuh"

namespace epl {

// L1 eviction priority of a 16-byte load (ld.global.nc.L1::evict_*, sm_70+), as Triton's
// eviction_policy emits it: the first pass of a reread row asks L1 to keep its lines (evict_last),
// the reread, their last use, to drop them first (evict_first). kNone is load_16B_aligned. Same
// HAZARD as load_16B_aligned. kShared is no global load at all: the span was staged in shared
// memory (epl/row/staged.cuh) and is read with a plain load through its generic pointer.
enum class L1Evict { kNone, kEvictFirst, kEvictLast, kShared };

template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned_evict_last(const T* __restrict__ p) {
  Vec16<T> r;
  uint4& u = *reinterpret_cast<uint4*>(&r);
  asm("ld.global.nc.L1::evict_last.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
  return r;
}

template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned_evict_first(const T* __restrict__ p) {
  Vec16<T> r;
  uint4& u = *reinterpret_cast<uint4*>(&r);
  asm("ld.global.nc.L1::evict_first.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
  return r;
}

template <L1Evict HINT, typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned_hinted(const T* __restrict__ p) {
  if constexpr (HINT == L1Evict::kEvictLast) return load_16B_aligned_evict_last(p);
  else if constexpr (HINT == L1Evict::kEvictFirst) return load_16B_aligned_evict_first(p);
  else if constexpr (HINT == L1Evict::kShared) return *reinterpret_cast<const Vec16<T>*>(p);
  else return load_16B_aligned(p);
}

}  // namespace epl
