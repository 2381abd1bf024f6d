// epl/thread/load_unaligned.cuh — one thread's view of an array that does not start on a 16-byte
// boundary: where its first 16-byte vector begins, and 16 bytes read element by element.
//
// For the row walks that split a segment by address (group/walk.cuh: a scalar head, a body of
// 16-byte vectors, a scalar tail). Apart from load.cuh so that the kernels that never split keep
// their source hash.
#pragma once

#include "load.cuh"

namespace epl {

// Elements of T from p up to its first 16-byte boundary: (16 - p % 16) % 16 / sizeof(T), at most
// 16 / sizeof(T) - 1, none when p is 16-byte aligned (p aligned to sizeof(T)). A span that starts at
// p takes its 16-byte vectors from p + vec16_lead(p) on.
template <typename T>
__device__ __forceinline__ int vec16_lead(const T* p) {
  return static_cast<int>((16u - (static_cast<unsigned>(reinterpret_cast<size_t>(p)) & 15u)) & 15u) /
         static_cast<int>(sizeof(T));
}

// The 16 bytes at p, element by element: p aligned to sizeof(T) only, all 16 bytes in bounds. For an
// array read beside a split row at another offset mod 16 (a norm's weight: group/rewrite.cuh).
template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_elementwise(const T* __restrict__ p) {
  Vec16<T> r;
#pragma unroll
  for (int e = 0; e < Vec16<T>::N; ++e) r.v[e] = p[e];
  return r;
}

}  // namespace epl
