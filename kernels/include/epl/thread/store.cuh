// epl/thread/store.cuh — one thread's 16-byte vector stores (STG.E.128), the mirror of load.cuh.
#pragma once

#include "load.cuh"

namespace epl {

// HAZARD: p must be 16-byte aligned and the 16 bytes in bounds; the caller handles ragged tails.
template <typename T>
__device__ __forceinline__ void store_16B_aligned(T* __restrict__ p, const Vec16<T>& v) {
  *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&v);
}

// True when p may take 16-byte vector accesses (a null pointer, an absent array, may).
template <typename T>
__device__ __forceinline__ bool is_16B_aligned(const T* p) {
  return (reinterpret_cast<size_t>(p) & 15) == 0;
}

}  // namespace epl
