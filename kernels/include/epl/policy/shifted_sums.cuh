// epl/policy/shifted_sums.cuh — layernorm's mean and variance from one pass of sums about a pivot: a
// statistics policy for the streamed and staged row bodies (reread.cuh, staged.cuh).
//
// Records: catalog/realizations/layernorm/shifted-staged{,-pipelined}.yaml
//
// Why it exists beside reread.cuh's policies: in the staged body at bf16 long rows,
// LayerNormTwoPassStreamed issues 1.6x rmsnorm's instructions and runs nearer to issue-bound
// (experiment 0029-ncu-layernorm-bf16-long): its second pass over shared memory loads and
// widens every element again. LayerNormWelford's one pass costs more per element than that second
// pass. Here one pass takes d = x - p about a pivot p, the row's first element: one FADD for d, one
// for the sum, one FFMA for the sum of squares, then one all-reduce of a float pair (one cluster
// exchange, not two). mean = p + E[d], var = E[d^2] - E[d]^2.
// Numerics: the subtraction cancels as much as (mean - p)^2 outweighs var. p is an element of the
// row, so |mean - p| is of the order of the row's spread, whatever its mean: rows whose mean is far
// larger than their spread keep their bits, which the same sums about 0 (mergeable-statistics/
// naive-sum-sumsq) lose.
#pragma once

#include "../body/moments.cuh"  // SumSumSq
#include "../group/visit.cuh"
#include "../thread/widen.cuh"
#include "ops.cuh"

namespace epl {

// Sum and sum of squares of x - pivot over this thread's share, in load order (a thread's share of
// a long row is cols / (CLUSTER * BLOCK) elements: a short sequential chain).
template <int UNROLL, typename T>
struct RowShiftedSumsVisitor {
  float pivot;
  SumSumSq acc{0.0f, 0.0f};
  __device__ __forceinline__ explicit RowShiftedSumsVisitor(float p) : pivot(p) {}
  __device__ __forceinline__ void scalar(float x) {
    const float d = x - pivot;
    acc.sum += d;
    acc.sumsq = fmaf(d, d, acc.sumsq);
  }
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    float a[Vec16<T>::N];
    widen_vec16(v, a);
#pragma unroll
    for (int i = 0; i < Vec16<T>::N; ++i) scalar(a[i]);
  }
  __device__ __forceinline__ void round(const Vec16<T> (&v)[UNROLL]) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) vec(v[u]);
  }
};

struct LayerNormShiftedSums {
  using Op = LayerNormRow<LayerNormTwoPass>;
  // stats reads row[0] alone: the pipelined body stages it (staged_pipelined.cuh, ReadsRowHead)
  static constexpr bool kReadsRowHead = true;
  Op op;
  template <typename Walk, typename T, typename Group>
  __device__ __forceinline__ Op::Row stats(const T* __restrict__ row, const T* __restrict__ seg, int n, int lane,
                                           bool vector_path, Group& group, int cols) const {
    const float pivot = to_float(row[0]);  // the row's first element (cols >= 1), global or staged
    RowShiftedSumsVisitor<Walk::kUnroll, T> sums(pivot);
    visit_row_segment<Walk>(seg, n, lane, vector_path, sums);
    const SumSumSq s = group.all_reduce(sums.acc, SumSumSqMerge{});
    const float d = per_element(s.sum, cols);
    return op.of_moments(pivot + d, fmaxf(fmaf(-d, d, per_element(s.sumsq, cols)), 0.0f));
  }
};

}  // namespace epl
