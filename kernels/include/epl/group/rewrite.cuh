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

// in_phase: p0 + c0 and p1 + c0 are 16-byte aligned (params_in_phase); otherwise the parameters
// are read element by element (load_16B_elementwise).
template <int P, typename T, typename F>
__device__ __forceinline__ Vec16<T> apply_vec16(const float* x, const T* __restrict__ p0, const T* __restrict__ p1,
                                                int c0, F f, bool in_phase = true) {
  Vec16<T> a, b;
  if constexpr (P >= 1) a = in_phase ? load_16B_aligned(p0 + c0) : load_16B_elementwise(p0 + c0);
  if constexpr (P >= 2) b = in_phase ? load_16B_aligned(p1 + c0) : load_16B_elementwise(p1 + c0);
  return apply_vec16<P>(x, a, b, f);
}

// The same for one vector of the segment as loaded.
template <int P, typename T, typename F>
__device__ __forceinline__ Vec16<T> rewrite_vec16(const Vec16<T>& v, const T* __restrict__ p0,
                                                  const T* __restrict__ p1, int c0, F f, bool in_phase = true) {
  float x[Vec16<T>::N];
  widen_vec16(v, x);
  return apply_vec16<P>(x, p0, p1, c0, f, in_phase);
}

// Whether the P parameter arrays (segment-relative: column c of the segment at p0 + c) take
// 16-byte vectors at the body of a split segment, whose first vector is column `head`. A weight
// [cols] beside row r of x sits at the row's offset mod 16 only where r * cols * sizeof(T) is a
// multiple of 16: every row for cols a multiple of 16 / sizeof(T), every 16 / gcd(16, cols *
// sizeof(T))-th row otherwise. Out of phase, each body vector's parameters are read element by
// element (L1 hits after the first row: every row reads the same weight). A realignment by funnel
// shifts would load two aligned vectors of each parameter per body vector and hold both through the
// shift (registers, where the reread entries run under 32), and its last vector would read up to 15
// bytes past the array's end.
template <int P, typename T>
__device__ __forceinline__ bool params_in_phase(const T* p0, const T* p1, int head) {
  if constexpr (P == 0) return true;
  bool ok = is_16B_aligned(p0 + head);
  if constexpr (P >= 2) ok = ok && is_16B_aligned(p1 + head);
  return ok;
}

// out[c] = round_to_T(f(x, p0[c], p1[c])) for one element (the scalar path, a head or a tail).
template <int P, typename T, typename F>
__device__ __forceinline__ void rewrite_scalar(float x, const T* __restrict__ p0, const T* __restrict__ p1,
                                               T* __restrict__ out, int c, F f) {
  const float pa = P >= 1 ? to_float(p0[c]) : 0.0f;
  const float pb = P >= 2 ? to_float(p1[c]) : 0.0f;
  out[c] = from_float<T>(f(x, pa, pb));
}

// The vectors lane, lane + LANES, ... below nv of a 16-byte aligned span at v16, whose vector i is
// columns c0 + i * N of out and of the parameters (the vector path of rewrite_row_segment below, on
// a whole segment: c0 0, or a split one's body: c0 its head). in_phase as for apply_vec16.
template <typename Walk, int P, typename T, typename F>
__device__ __forceinline__ void rewrite_vectors(const T* __restrict__ v16, const T* __restrict__ p0,
                                                const T* __restrict__ p1, T* __restrict__ out, int c0, int nv,
                                                int lane, bool in_phase, F f) {
  constexpr int LANES = Walk::kLanes;
  constexpr int UNROLL = Walk::kUnroll;
  constexpr Evict HINT = Walk::kHint;
  constexpr int N = Vec16<T>::N;
  int i = lane;
  // Exactly UNROLL rounds' loads in flight: unrolled further, the rounds' registers would cost
  // the threads per SM that hide the latency here.
#pragma unroll 1
  for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds: all loads first
    Vec16<T> v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(v16 + (i + u * LANES) * N);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int c = c0 + (i + u * LANES) * N;
      store_16B_aligned(out + c, rewrite_vec16<P>(v[u], p0, p1, c, f, in_phase));
    }
  }
#pragma unroll 1
  for (; i < nv; i += LANES) {
    const int c = c0 + i * N;
    store_16B_aligned(out + c, rewrite_vec16<P>(load_16B_aligned_hinted<HINT>(v16 + i * N), p0, p1, c, f, in_phase));
  }
}

// vector_path with Walk::kSplit: seg and out at the same offset mod 16, any n: split by address
// (RowSplit, walk.cuh), the body in 16-byte vectors, this lane's head and tail elements by scalar
// loads and stores; the parameters as vectors where in phase with the body (params_in_phase),
// element by element where not. Without kSplit: seg, out, p0 and p1 16-byte aligned and n a whole
// number of vectors. Cost per thread: about n / LANES / N loads and stores of 16 bytes (plus P
// parameter loads each). Walk: a SegmentWalk (walk.cuh); its hint applies to the segment's 16-byte
// loads, not the parameters'; with kCols > 0, n == kCols (aligned, no split).
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
    } else if constexpr (Walk::kSplit) {
      // This lane's head and tail elements are loaded before the body's rounds and written after.
      using Edges = RowEdges<LANES, T>;
      const RowSplit sp = split_row_segment(seg, n);
      T edge[2 * Edges::kSlots];
#pragma unroll
      for (int s = 0; s < 2 * Edges::kSlots; ++s) {
        if (Edges::valid(sp, lane, s)) edge[s] = seg[Edges::col(sp, lane, s)];
      }
      rewrite_vectors<Walk, P>(seg + sp.head, p0, p1, out, sp.head, sp.nv, lane, params_in_phase<P>(p0, p1, sp.head), f);
#pragma unroll
      for (int s = 0; s < 2 * Edges::kSlots; ++s) {
        if (Edges::valid(sp, lane, s)) rewrite_scalar<P>(to_float(edge[s]), p0, p1, out, Edges::col(sp, lane, s), f);
      }
    } else {
      rewrite_vectors<Walk, P>(seg, p0, p1, out, 0, n / N, lane, true, f);
    }
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
