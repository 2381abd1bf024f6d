// epl/row/local_shift.cuh (exploration copy, not in the committed kernels) — layernorm's mean and
// variance from one pass of sums about a pivot that the block reads from its own staged slice.
//
// LayerNormShiftedSums takes the row's first element from global memory, an L2 round trip at the
// start of every row's fold. In the persistent pipeline the row has landed in shared memory before
// it is waited for, so that trip is the first thing the fold waits on. Here each block takes seg[0],
// its own slice's first element, a shared-memory broadcast. Blocks of a cluster then sum about
// different pivots, so each thread turns its sums into a (count, mean, M2) state and the all-reduce
// merges the states by Chan (ChanMerge, in the group's canonical order: bitwise reproducible).
// Per element the fold costs what shifted sums cost (two FADD, one FFMA); the merge adds a division
// at each butterfly step and each cluster rank, once a row.
#pragma once

#include "../thread/welford.cuh"
#include "shifted_sums.cuh"

namespace epl {

template <int UNROLL, typename T>
struct RowCountedShiftedSums {
  RowShiftedSumsVisitor<UNROLL, T> sums;
  int n = 0;  // elements visited
  __device__ __forceinline__ explicit RowCountedShiftedSums(float p) : sums(p) {}
  __device__ __forceinline__ void scalar(float x) { sums.scalar(x); ++n; }
  __device__ __forceinline__ void vec(const Vec16<T>& v) { sums.vec(v); n += Vec16<T>::N; }
  __device__ __forceinline__ void round(const Vec16<T> (&v)[UNROLL]) { sums.round(v); n += UNROLL * Vec16<T>::N; }
  // The thread's state: mean = p + E[d], M2 = sum d^2 - (sum d)^2 / n; the identity when it visited none.
  __device__ __forceinline__ WelfordState state() const {
    if (n == 0) return WelfordState::identity();
    const float count = static_cast<float>(n);
    const float e = div_by_count(sums.acc.sum, count);
    return WelfordState{count, sums.pivot + e, fmaxf(fmaf(-e, sums.acc.sum, sums.acc.sumsq), 0.0f)};
  }
};

struct LayerNormLocalShift {
  using Op = LayerNormRow<LayerNormTwoPass>;
  Op op;
  template <int LANES, int UNROLL, int COLS, Evict HINT, typename T, typename Group>
  __device__ __forceinline__ Op::Row stats(const T* __restrict__, const T* __restrict__ seg, int n, int lane,
                                           bool vector_path, Group& group, int) const {
    const float pivot = n > 0 ? to_float(seg[0]) : 0.0f;  // staged: a broadcast read of shared memory
    RowCountedShiftedSums<UNROLL, T> sums(pivot);
    visit_row_segment<LANES, UNROLL, HINT, COLS>(seg, n, lane, vector_path, sums);
    const WelfordState s = group.all_reduce(sums.state(), ChanMerge{});
    return op.of_moments(s.mean, div_by_count(s.m2, s.count));
  }
};

}  // namespace epl
