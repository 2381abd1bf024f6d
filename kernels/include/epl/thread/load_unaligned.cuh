// epl/thread/load_unaligned.cuh — one thread's view of an array that does not start on a 16-byte
// boundary: where its first 16-byte vector begins, and 16 bytes read element by element or from the
// two aligned vectors around them.
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

// Words Q .. Q + 3 of w shifted right by `bits` within words (funnel shifts, for T narrower than 4
// bytes; bits 0 otherwise): the 16 bytes at byte 4 * Q + bits / 8 of the 32 bytes w holds.
template <int Q, typename T>
__device__ __forceinline__ uint4 words_from(const unsigned (&w)[8], unsigned bits) {
  if constexpr (sizeof(T) >= 4) {
    return make_uint4(w[Q], w[Q + 1], w[Q + 2], w[Q + 3]);
  } else {
    return make_uint4(__funnelshift_r(w[Q], w[Q + 1], bits), __funnelshift_r(w[Q + 1], w[Q + 2], bits),
                      __funnelshift_r(w[Q + 2], w[Q + 3], bits), __funnelshift_r(w[Q + 3], w[Q + 4], bits));
  }
}

// The 16 bytes at p (aligned to sizeof(T) only, all 16 in bounds) from the two aligned 16-byte
// vectors that hold them, joined by funnel shifts; element by element where the second vector would
// reach past `end` (one past the last element that may be read). For an array read beside a split
// row at another offset mod 16 (a norm's weight and bias: group/rewrite.cuh): element by element, a
// warp's sixteen 2-byte loads of a bf16 vector cost 32 L1 wavefronts where these two cost 8.
template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_realigned(const T* __restrict__ p, const T* end) {
  const size_t at = reinterpret_cast<size_t>(p);
  const unsigned shift = static_cast<unsigned>(at) & 15u;  // bytes past the vector below p
  if (shift == 0u) return load_16B_aligned(p);
  const uint4* lo = reinterpret_cast<const uint4*>(at - shift);
  if (reinterpret_cast<const T*>(lo + 2) > end) return load_16B_elementwise(p);
  const uint4 a = __ldg(lo), b = __ldg(lo + 1);
  const unsigned w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  const unsigned bits = (shift & 3u) * 8u;
  uint4 r;
  switch (shift >> 2) {  // the word offset, uniform over a row's vectors: constant indices in each case
    case 0: r = words_from<0, T>(w, bits); break;
    case 1: r = words_from<1, T>(w, bits); break;
    case 2: r = words_from<2, T>(w, bits); break;
    default: r = words_from<3, T>(w, bits); break;
  }
  Vec16<T> v;
  *reinterpret_cast<uint4*>(&v) = r;
  return v;
}

}  // namespace epl
