// epl/device/fold_vec16.cuh — which elements each thread of a grid folds: 16-byte vectors dealt
// grid-stride, several loads in flight per thread; scalar head and tail.
//
// Scope: one thread's share of a grid-wide reduction. The T-aligned input x is split into
//   head  the elements before the first 16-byte boundary (none when x is 16-byte aligned, as
//         every CuPy and PyTorch allocation is: they are 256-byte aligned),
//   body  whole 16-byte vectors of VEC = 16 / sizeof(T) elements (4 float, 8 bf16),
//   tail  the n - head - VEC*body elements after the last whole vector (fewer than VEC).
// Body vector i goes to grid thread i mod (parts * BLOCK); each thread issues UNROLL vector loads
// (LDG.E.128) before using the first, so 16 * UNROLL bytes per thread are in flight. Head and tail
// elements (at most 2 * (VEC - 1)) go one each to the grid's first threads.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load.cuh"
#include "../thread/ops.cuh"
#include "../thread/tree.cuh"
#include "../thread/widen.cuh"

namespace epl {
namespace device {

// Load policies: how a thread reads global memory.
//
// LoadReadOnly: the non-coherent read-only path (LDG.E.128.CONSTANT). Only for data that nothing
// writes during the kernel (the reduction's input).
struct LoadReadOnly {
  template <typename T>
  static __device__ __forceinline__ Vec16<T> vec(const T* p) { return load_16B_aligned(p); }
  template <typename T>
  static __device__ __forceinline__ T scalar(const T* p) { return __ldg(p); }
};

// LoadCoherentL2: cache-global loads (ld.global.cg, LDG.E.STRONG.GPU), served by L2, never by a
// possibly stale L1 line. For data other blocks of the same kernel wrote (partials read by the
// last block to finish).
struct LoadCoherentL2 {
  template <typename T>
  static __device__ __forceinline__ Vec16<T> vec(const T* p) {
    Vec16<T> r;
    *reinterpret_cast<uint4*>(&r) = __ldcg(reinterpret_cast<const uint4*>(p));
    return r;
  }
  template <typename T>
  static __device__ __forceinline__ T scalar(const T* p) {
    return __ldcg(p);
  }
};

// Returns this thread's fold (identity() when it has no element), in float32, in a fixed order that
// depends only on (n, x mod 16, BLOCK, UNROLL, parts): bitwise reproducible run to run.
// Requirements: blockDim.x == BLOCK; x aligned to sizeof(T); n < 2^31; part < parts;
// parts * BLOCK * UNROLL < 2^31.
template <int BLOCK, int UNROLL, typename T, typename Op, typename Load = LoadReadOnly>
__device__ __forceinline__ float fold_vec16(const T* x,  // n elements (no __restrict__: Load decides the path)
                                            unsigned n,               // element count
                                            unsigned part,            // this block's part
                                            unsigned parts,           // cooperating blocks
                                            Op op = Op()) {
  static_assert(UNROLL >= 1, "UNROLL must be at least 1");
  using V = Vec16<T>;
  constexpr unsigned VEC = V::N;
  const unsigned misalign = static_cast<unsigned>(reinterpret_cast<size_t>(x)) & 15u;
  const unsigned head = min(n, misalign ? (16u - misalign) / static_cast<unsigned>(sizeof(T)) : 0u);
  const unsigned body = (n - head) / VEC;  // whole vectors from x + head, which is 16-byte aligned
  const unsigned tail = head + body * VEC;  // first tail element
  // The body as an array of vectors: one 64-bit base, so each load's address is one IMAD.WIDE.U32.
  const V* xv = reinterpret_cast<const V*>(x + head);
  const unsigned thread = part * BLOCK + threadIdx.x;
  const unsigned threads = parts * BLOCK;

  float acc = Op::identity();
  unsigned i = thread;
  for (; i + (UNROLL - 1) * threads < body; i += UNROLL * threads) {
    V v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = Load::vec(xv[i + u * threads].v);  // all in flight
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc = op(acc, epl::fold_vec16(v[u], op));
  }
  for (; i < body; i += threads) acc = op(acc, epl::fold_vec16(Load::vec(xv[i].v), op));
  if (thread < head) acc = op(acc, to_float(Load::scalar(x + thread)));
  if (thread < n - tail) acc = op(acc, to_float(Load::scalar(x + tail + thread)));
  return acc;
}

}  // namespace device
}  // namespace epl
