// epl/thread/load.cuh — one thread's 16-byte vector loads (LDG.E.128).
//
// A 16-byte load per thread is what lets a warp move 512 bytes per instruction, independent of
// the element size (4 floats, 8 bf16). Not yet used by the block-tile-reduce harness, whose
// contract is scalar strided loads; kept here for streaming realizations.
#pragma once

namespace epl {

// N = 16 / sizeof(T) elements, aligned so the compiler may move them as one 128-bit value.
template <typename T>
struct alignas(16) Vec16 {
  static constexpr int N = 16 / static_cast<int>(sizeof(T));
  static_assert(N * sizeof(T) == 16, "Vec16 needs an element size dividing 16 bytes");
  T v[N];
};

// HAZARD: p must be 16-byte aligned (a misaligned address is a launch-fatal error), and the 16
// bytes must be in bounds; the caller handles the ragged tail with scalar loads. Read-only path.
template <typename T>
__device__ __forceinline__ Vec16<T> load_16B_aligned(const T* __restrict__ p) {
  Vec16<T> r;
  *reinterpret_cast<uint4*>(&r) = __ldg(reinterpret_cast<const uint4*>(p));
  return r;
}

}  // namespace epl
