// epl/group/rewrite.cuh — the second pass of a row operator that does not hold its row: reread the
// row segment and write f(x, p0[j], p1[j]) for every element.
//
// Records: catalog/realizations/softmax/online-block-reread.yaml and the */*-reread.yaml operator
// realizations (epl/body/reread.cuh).
//
// Same access pattern as the fold that read the segment first (visit.cuh): LANES threads share
// seg[0, n); thread `lane` takes every LANES-th 16-byte vector, UNROLL loads in flight, so each
// thread rereads the very vectors it folded — from L2 while the rows in flight fit there. P (0, 1
// or 2) per-column parameter arrays are read as vectors at the same offsets (from L1/L2 after the
// first row); absent ones read as 0 and are never dereferenced. Everything is float32 until the
// store, which rounds to T once.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load_evict.cuh"
#include "../thread/store.cuh"
#include "../thread/widen.cuh"
#include "walk.cuh"

namespace epl {

// The output vector at column c0 from N float32 values x[0, N) (a vector's elements, already
// widened): out[e] = round_to_T(f(x[e], p0[c0 + e], p1[c0 + e])), parameters read as 16-byte vectors.
// Shared by this pass and by the register-resident rows (resident.cuh, RowShare::store).
// The same with the parameter vectors already in registers (a read when P >= 1, b when P == 2):
// the persistent staged rows hold them for every row (staged_pipelined.cuh).
template <int P, typename T, typename F>
__device__ __forceinline__ Vec16<T> apply_vec16(const float* x, const Vec16<T>& a, const Vec16<T>& b, F f) {
  constexpr int N = Vec16<T>::N;
  float pa[N] = {}, pb[N] = {};
  if constexpr (P >= 1) widen_vec16(a, pa);
  if constexpr (P >= 2) widen_vec16(b, pb);
  Vec16<T> o;
#pragma unroll
  for (int e = 0; e < N; ++e) o.v[e] = from_float<T>(f(x[e], pa[e], pb[e]));
  return o;
}

template <int P, typename T, typename F>
__device__ __forceinline__ Vec16<T> apply_vec16(const float* x, const T* __restrict__ p0, const T* __restrict__ p1,
                                                int c0, F f) {
  Vec16<T> a, b;
  if constexpr (P >= 1) a = load_16B_aligned(p0 + c0);
  if constexpr (P >= 2) b = load_16B_aligned(p1 + c0);
  return apply_vec16<P>(x, a, b, f);
}

// The same for one vector of the segment as loaded.
template <int P, typename T, typename F>
__device__ __forceinline__ Vec16<T> rewrite_vec16(const Vec16<T>& v, const T* __restrict__ p0,
                                                  const T* __restrict__ p1, int c0, F f) {
  float x[Vec16<T>::N];
  widen_vec16(v, x);
  return apply_vec16<P>(x, p0, p1, c0, f);
}

// vector_path: seg, out, p0 and p1 16-byte aligned and n a whole number of vectors. Cost per
// thread: about n / LANES / N loads and stores of 16 bytes (plus P parameter loads each).
// Walk: a SegmentWalk (walk.cuh); its hint applies to the segment's 16-byte loads, not the
// parameters'; with kCols > 0, n == kCols.
template <typename Walk, int P, typename T, typename F>
__device__ __forceinline__ void rewrite_row_segment(const T* __restrict__ seg, const T* __restrict__ p0,
                                                    const T* __restrict__ p1, T* __restrict__ out, int n, int lane,
                                                    bool vector_path, F f) {
  static_assert(P >= 0 && P <= 2, "P in 0..2");
  constexpr int LANES = Walk::kLanes;
  constexpr int UNROLL = Walk::kUnroll;
  constexpr Evict HINT = Walk::kHint;
  constexpr int COLS = Walk::kCols;
  if (vector_path) {
    constexpr int N = Vec16<T>::N;
    if constexpr (COLS > 0) {
      constexpr int NV = COLS / N;
      static_assert(NV <= UNROLL * LANES, "COLS must fit one round of UNROLL vectors per lane");
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (NV == UNROLL * LANES || lane + u * LANES < NV) v[u] = load_16B_aligned_hinted<HINT>(seg + (lane + u * LANES) * N);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c0 = (lane + u * LANES) * N;
        if (NV == UNROLL * LANES || lane + u * LANES < NV) store_16B_aligned(out + c0, rewrite_vec16<P>(v[u], p0, p1, c0, f));
      }
      return;
    }
    const int nv = n / N;
    int i = lane;
    // Exactly UNROLL rounds' loads in flight: unrolled further, the rounds' registers would cost
    // the threads per SM that hide the latency here.
#pragma unroll 1
    for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds: all loads first
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(seg + (i + u * LANES) * N);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c0 = (i + u * LANES) * N;
        store_16B_aligned(out + c0, rewrite_vec16<P>(v[u], p0, p1, c0, f));
      }
    }
#pragma unroll 1
    for (; i < nv; i += LANES) store_16B_aligned(out + i * N, rewrite_vec16<P>(load_16B_aligned_hinted<HINT>(seg + i * N), p0, p1, i * N, f));
    return;
  }
#pragma unroll 1
  for (int j = lane; j < n; j += LANES) {
    const float pa = P >= 1 ? to_float(p0[j]) : 0.0f;
    const float pb = P >= 2 ? to_float(p1[j]) : 0.0f;
    out[j] = from_float<T>(f(to_float(seg[j]), pa, pb));
  }
}

}  // namespace epl
