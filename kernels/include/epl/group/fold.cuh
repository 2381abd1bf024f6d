// epl/group/fold.cuh — one thread's share of a row segment, folded into one float32 value.
//
// LANES threads share a segment of n elements; thread `lane` (0 <= lane < LANES) takes every
// LANES-th 16-byte vector of it (vector path) or every LANES-th element (scalar path), so a warp's
// loads are coalesced. UNROLL independent loads are issued before the first one is folded: what
// keeps 16 * UNROLL bytes in flight per thread, which is what reaches the read-bandwidth ceiling.
// The ragged end of the segment is one more UNROLL-wide round with predicated loads, not a serial
// loop of single loads.
//
// Order of operations (fixed, so results are bitwise reproducible for a fixed LANES, UNROLL and
// path): each vector is folded as a pairwise tree of its 16 / sizeof(T) elements, then into the
// thread's accumulator in index order. The caller combines the LANES accumulators (group or block
// reduction).
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load.cuh"
#include "../thread/ops.cuh"
#include "../thread/tree.cuh"
#include "../thread/widen.cuh"

namespace epl {

// Whether the rows of a row-major [rows, cols] matrix at x can all be read with 16-byte vectors:
// x is 16-byte aligned and every row starts on a 16-byte boundary (cols * sizeof(T) % 16 == 0).
// One answer for the whole matrix, so every lane group of a warp takes the same path.
template <typename T>
__device__ __forceinline__ bool rows_are_vector_aligned(const T* x, int cols) {
  return (reinterpret_cast<size_t>(x) & 15) == 0 && cols % Vec16<T>::N == 0;
}

// This thread's fold of seg[0, n) with LANES threads sharing it (see the top of the file).
// vector_path: seg is 16-byte aligned and n % (16 / sizeof(T)) == 0 (rows_are_vector_aligned;
// a segment that starts on a row or a multiple of 16 bytes into it). Otherwise scalar loads.
// Cost per thread: about n / LANES / N loads of 16 bytes (N = 16 / sizeof(T)), in rounds of
// UNROLL; returns identity() if the thread has no element.
template <int LANES, int UNROLL, typename T, typename Op>
__device__ __forceinline__ float fold_row_segment(const T* __restrict__ seg, int n, int lane, bool vector_path,
                                                  Op op) {
  static_assert(LANES >= 1 && UNROLL >= 1, "LANES and UNROLL must be positive");
  float acc = Op::identity();
  if (vector_path) {
    constexpr int N = Vec16<T>::N;
    const int nv = n / N;
    int i = lane;
    for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned(seg + (i + u * LANES) * N);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) acc = op(acc, fold_vec16(v[u], op));
    }
    if (i < nv) {  // the ragged last round: the in-range loads still go out together
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (i + u * LANES < nv) v[u] = load_16B_aligned(seg + (i + u * LANES) * N);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (i + u * LANES < nv) acc = op(acc, fold_vec16(v[u], op));
      }
    }
    return acc;
  }
  int j = lane;
  for (; j + (UNROLL - 1) * LANES < n; j += UNROLL * LANES) {
    T s[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s[u] = seg[j + u * LANES];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc = op(acc, to_float(s[u]));
  }
  if (j < n) {
    T s[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (j + u * LANES < n) s[u] = seg[j + u * LANES];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (j + u * LANES < n) acc = op(acc, to_float(s[u]));
    }
  }
  return acc;
}

}  // namespace epl
