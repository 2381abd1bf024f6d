// epl/thread/widen.cuh — one loaded 16-byte vector widened to float32 (exact), one thread.
//
// Every fold, statistics pass and rewrite of a Vec16 widens through here, so each element type has
// one widening. bfloat16 pairs are taken from their 32-bit word: the low element shifted up, the
// high one masked, one instruction per element. Element-wise __bfloat162float lowers the high
// element to a byte permute and a shift (two): half an instruction more per element in every pass
// over a row, which the bf16 long-row norms pay where they run near issue-bound
// (experiment 0029-ncu-layernorm-bf16-long).
#pragma once

#include "convert.cuh"
#include "load.cuh"

namespace epl {

// out[0, N) = the N = 16 / sizeof(T) elements of v as float32.
template <typename T>
__device__ __forceinline__ void widen_vec16(const Vec16<T>& v, float* out) {
#pragma unroll
  for (int e = 0; e < Vec16<T>::N; ++e) out[e] = to_float(v.v[e]);
}
__device__ __forceinline__ void widen_vec16(const Vec16<__nv_bfloat16>& v, float* out) {
  const unsigned* w = reinterpret_cast<const unsigned*>(&v);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    out[2 * q] = __uint_as_float(w[q] << 16);
    out[2 * q + 1] = __uint_as_float(w[q] & 0xffff0000u);
  }
}

}  // namespace epl
