// epl/group/visit.cuh — one thread's share of a row segment, streamed to a visitor in load rounds.
//
// The loop of fold_row_segment (fold.cuh), with what happens to the loaded values left to the
// caller: a visitor that folds a state richer than one float (a (sum, sum of squares) pair, a
// Welford state, a sum of squared deviations from a known mean). Same access pattern: LANES
// threads share seg[0, n); thread `lane` takes every LANES-th 16-byte vector of the segment's
// aligned body and its share of the head and tail elements around it (vector path), or every
// LANES-th element (scalar path); UNROLL loads are issued before the first is visited (16 * UNROLL
// bytes in flight per thread); the ragged end is one more predicated round.
//
// The visitor V provides (all __device__, called in index order of the thread's share):
//   void round(const Vec16<T> (&v)[UNROLL])  a full round: UNROLL in-range vectors;
//   void vec(const Vec16<T>& v)              one vector of the ragged last round;
//   void scalar(float x)                     one element: the scalar path, or a head or tail element
//                                            of the vector path (widened to float32).
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load_evict.cuh"
#include "walk.cuh"

namespace epl {

// Visits vectors lane, lane + LANES, ... below nv of the 16-byte aligned span at v16 (the vector
// path of visit_row_segment below, on a whole segment or a split one's body).
template <typename Walk, typename T, typename V>
__device__ __forceinline__ void visit_vectors(const T* __restrict__ v16, int nv, int lane, V& visitor) {
  constexpr int LANES = Walk::kLanes;
  constexpr int UNROLL = Walk::kUnroll;
  constexpr Evict HINT = Walk::kHint;
  constexpr int N = Vec16<T>::N;
  int i = lane;
  for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds
    Vec16<T> v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(v16 + (i + u * LANES) * N);
    visitor.round(v);
  }
  if (i < nv) {  // the ragged last round: the in-range loads still go out together
    Vec16<T> v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (i + u * LANES < nv) v[u] = load_16B_aligned_hinted<HINT>(v16 + (i + u * LANES) * N);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (i + u * LANES < nv) visitor.vec(v[u]);
    }
  }
}

// Streams this thread's share of seg[0, n) into `visitor`, walked as Walk (a SegmentWalk, walk.cuh)
// says. vector_path with Walk::kSplit: split by address (RowSplit, walk.cuh): the body's vectors in
// rounds, then this lane's head and tail elements through visitor.scalar; any seg, any n. Without
// kSplit: seg 16-byte aligned and n % (16 / sizeof(T)) == 0 (rows_are_vector_aligned in fold.cuh).
// Not vector_path: every element by a scalar load.
// Cost per thread: about n / kLanes / N loads of 16 bytes (N = 16 / sizeof(T)), in rounds of kUnroll.
template <typename Walk, typename T, typename V>
__device__ __forceinline__ void visit_row_segment(const T* __restrict__ seg, int n, int lane, bool vector_path,
                                                  V& visitor) {
  constexpr int LANES = Walk::kLanes;
  constexpr int UNROLL = Walk::kUnroll;
  constexpr Evict HINT = Walk::kHint;
  constexpr int COLS = Walk::kCols;
  if (vector_path) {
    constexpr int N = Vec16<T>::N;
    if constexpr (COLS > 0) {
      constexpr int NV = COLS / N;
      static_assert(NV <= UNROLL * LANES, "COLS must fit one round of UNROLL vectors per lane");
      if (n == 0) return;
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (NV == UNROLL * LANES || lane + u * LANES < NV) v[u] = load_16B_aligned_hinted<HINT>(seg + (lane + u * LANES) * N);
      }
      if constexpr (NV == UNROLL * LANES) {
        visitor.round(v);
      } else {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
          if (lane + u * LANES < NV) visitor.vec(v[u]);
        }
      }
    } else if constexpr (Walk::kSplit) {
      // This lane's head and tail elements are loaded before the body's rounds and visited after
      // them: their loads wait for nothing, and the rounds start at once.
      using Edges = RowEdges<LANES, T>;
      const RowSplit sp = split_row_segment(seg, n);
      T edge[2 * Edges::kSlots];
#pragma unroll
      for (int s = 0; s < 2 * Edges::kSlots; ++s) {
        if (Edges::valid(sp, lane, s)) edge[s] = seg[Edges::col(sp, lane, s)];
      }
      visit_vectors<Walk>(seg + sp.head, sp.nv, lane, visitor);
#pragma unroll
      for (int s = 0; s < 2 * Edges::kSlots; ++s) {
        if (Edges::valid(sp, lane, s)) visitor.scalar(to_float(edge[s]));
      }
    } else {
      visit_vectors<Walk>(seg, n / N, lane, visitor);
    }
    return;
  }
  int j = lane;
  for (; j + (UNROLL - 1) * LANES < n; j += UNROLL * LANES) {
    T s[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s[u] = seg[j + u * LANES];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) visitor.scalar(to_float(s[u]));
  }
  if (j < n) {
    T s[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (j + u * LANES < n) s[u] = seg[j + u * LANES];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (j + u * LANES < n) visitor.scalar(to_float(s[u]));
    }
  }
}

}  // namespace epl
