// epl/device/sum_slices.cuh — the slices of a split reduction summed in a fixed order and rounded
// once: out[i] = round(Σ_s ws[s · count + i]), s = 0, 1, ..., slices - 1 (a split-K workspace
// [slices][count] of fp32 partial tiles, gemm/split-k).
//
// Scope: every thread of a grid, grid-stride. Each output's sum runs over the slices in index
// order whatever the grid, so the bits depend only on the slices: bitwise deterministic. When
// count % 4 == 0 (every slice 16-byte aligned if ws is) a thread takes 4 outputs at a time, one
// 16-byte read-only load a slice (LDG.E.128) and one 8-byte store of bf16; otherwise one element
// at a time. Cost: 4 · slices · count bytes read, count · sizeof(Out) written, no barriers.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load.cuh"

namespace epl {
namespace device {

template <int BLOCK, typename Out>
__device__ __forceinline__ void sum_slices(const float* __restrict__ ws,  // [slices][count], written by an earlier launch
                                           int slices,                    // >= 1
                                           long long count,               // elements a slice
                                           Out* __restrict__ out) {       // [count]
  const long long stride = static_cast<long long>(gridDim.x) * BLOCK;
  const long long first = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
  if ((count & 3) == 0) {
    for (long long i = 4 * first; i < count; i += 4 * stride) {
      Vec16<float> acc = load_16B_aligned(ws + i);
      for (int s = 1; s < slices; ++s) {
        const Vec16<float> x = load_16B_aligned(ws + s * count + i);
#pragma unroll
        for (int e = 0; e < 4; ++e) acc.v[e] += x.v[e];
      }
      alignas(16) Out r[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) r[e] = from_float<Out>(acc.v[e]);
      static_assert(sizeof(Out) == 2 || sizeof(Out) == 4, "4 outputs are one 8- or 16-byte store");
      if constexpr (sizeof(Out) == 2) {
        *reinterpret_cast<uint2*>(out + i) = *reinterpret_cast<const uint2*>(r);
      } else {
        *reinterpret_cast<uint4*>(out + i) = *reinterpret_cast<const uint4*>(r);
      }
    }
  } else {
    for (long long i = first; i < count; i += stride) {
      float acc = __ldg(ws + i);
      for (int s = 1; s < slices; ++s) acc += __ldg(ws + s * count + i);
      out[i] = from_float<Out>(acc);
    }
  }
}

}  // namespace device
}  // namespace epl
