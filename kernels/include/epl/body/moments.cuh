// epl/body/moments.cuh — per-row mean and population variance, one block per row.
//
// Records: catalog/realizations/mergeable-statistics/two-pass.yaml
//          catalog/realizations/mergeable-statistics/naive-sum-sumsq.yaml
//          catalog/realizations/mergeable-statistics/welford-chan.yaml
// Contract: row-moments (epldb/contracts/row_moments.py): mean[r] and var[r] (float32, divisor
// cols) of every row of a row-major [rows, cols] x (float32 or bfloat16).
//
// All three stream the row with visit_row_segment (visit.cuh: 16-byte loads when the rows are
// 16-byte aligned, UNROLL loads in flight per thread) and differ in the state they fold:
//   two-pass         sum x (block all-reduce: mean in every thread), then a second read of the
//                    row folding sum (x - mean)^2. Exact centring; two reads, two barriers.
//   naive-sum-sumsq  (sum x, sum x^2) in one read; var = E[x^2] - E[x]^2. CAUTIONARY: cancels
//                    catastrophically once mean^2 / var nears 2^24 in float32.
//   welford-chan     (count, mean, M2) in one read: each round of UNROLL vectors becomes a state
//                    by an in-register two-pass, merged into the thread's state by Chan's formula;
//                    thread states merged across warps and the block (BlockAllReduceState).
//                    SHIFT: centre the data on the row's first element first (exact subtraction
//                    when the values are within a factor 2 of it), which removes the error left
//                    by rounding the running means when |mean| >> std.
#pragma once

#include "../block/reduce_state.cuh"
#include "../block/reduce_warp_shuffle.cuh"
#include "../group/fold.cuh"
#include "../group/visit.cuh"
#include "../thread/convert.cuh"
#include "../thread/load.cuh"
#include "../thread/ops.cuh"
#include "../thread/welford.cuh"
#include "../thread/widen.cuh"
#include "../util.cuh"

namespace epl {

// --- visitors (visit.cuh): what each thread folds -------------------------------------------------

// sum f(x) over one 16-byte vector, widened to float32 and summed as a pairwise tree.
template <typename T, typename F>
__device__ __forceinline__ float sum_vec16_of(const Vec16<T>& v, F f) {
  constexpr int N = Vec16<T>::N;
  float a[N];
  widen_vec16(v, a);
#pragma unroll
  for (int i = 0; i < N; ++i) a[i] = f(a[i]);
  tree_in_place<N / 2>(a, Sum{});
  return a[0];
}

// sum (x - shift), each vector a pairwise tree first: the plain sum (shift 0, folded away: x - 0 is
// x for every float) or the shifted sum of a mean taken about a pivot (layernorm's row head).
template <int UNROLL, typename T>
struct RowSumVisitor {
  float shift = 0.0f;
  float acc = 0.0f;
  RowSumVisitor() = default;
  __device__ __forceinline__ explicit RowSumVisitor(float s) : shift(s) {}
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const float s = shift;
    acc += sum_vec16_of(v, [s](float x) { return x - s; });
  }
  __device__ __forceinline__ void round(const Vec16<T> (&v)[UNROLL]) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) vec(v[u]);
  }
  __device__ __forceinline__ void scalar(float x) { acc += x - shift; }
};

// sum (x - mean)^2 for a known mean, each vector a pairwise tree first.
template <int UNROLL, typename T>
struct RowSquaredDeviationVisitor {
  float mean;
  float acc = 0.0f;
  __device__ __forceinline__ explicit RowSquaredDeviationVisitor(float m) : mean(m) {}
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const float m = mean;
    acc += sum_vec16_of(v, [m](float x) {
      const float d = x - m;
      return d * d;
    });
  }
  __device__ __forceinline__ void round(const Vec16<T> (&v)[UNROLL]) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) vec(v[u]);
  }
  __device__ __forceinline__ void scalar(float x) {
    const float d = x - mean;
    acc = fmaf(d, d, acc);
  }
};

// (sum x, sum x^2): the state of the naive form. Merge: component-wise sum.
struct SumSumSq {
  float sum;
  float sumsq;
};

struct SumSumSqMerge {
  __device__ __forceinline__ SumSumSq operator()(const SumSumSq& a, const SumSumSq& b) const {
    return SumSumSq{a.sum + b.sum, a.sumsq + b.sumsq};
  }
};
// Two IEEE adds, each commutative bit for bit: butterfly steps merge without a canonical order.
template <>
struct MergeCommutes<SumSumSqMerge> {
  static constexpr bool value = true;
};

template <int UNROLL, typename T>
struct RowSumSumSqVisitor {
  SumSumSq acc{0.0f, 0.0f};
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    constexpr int N = Vec16<T>::N;
    float s[N], q[N];
    widen_vec16(v, s);
#pragma unroll
    for (int i = 0; i < N; ++i) q[i] = s[i] * s[i];
#pragma unroll
    for (int w = N / 2; w > 0; w /= 2) {
#pragma unroll
      for (int i = 0; i < w; ++i) {
        s[i] += s[i + w];
        q[i] += q[i + w];
      }
    }
    acc.sum += s[0];
    acc.sumsq += q[0];
  }
  __device__ __forceinline__ void round(const Vec16<T> (&v)[UNROLL]) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) vec(v[u]);
  }
  __device__ __forceinline__ void scalar(float x) {
    acc.sum += x;
    acc.sumsq = fmaf(x, x, acc.sumsq);
  }
};

// Welford state of (x - pivot): a full round is one chunk of UNROLL * N values (in-register
// two-pass, one Chan merge); a ragged-round vector is a chunk of N; a scalar is one push.
template <int UNROLL, typename T>
struct RowWelfordVisitor {
  float pivot;
  WelfordState state = WelfordState::identity();
  __device__ __forceinline__ explicit RowWelfordVisitor(float p) : pivot(p) {}
  __device__ __forceinline__ void round(const Vec16<T> (&v)[UNROLL]) {
    float vals[UNROLL * Vec16<T>::N];
    widen_vectors<UNROLL>(v, pivot, vals);
    state = ChanMerge{}(state, welford_of_values(vals));
  }
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const Vec16<T> one[1] = {v};
    float vals[Vec16<T>::N];
    widen_vectors<1>(one, pivot, vals);
    state = ChanMerge{}(state, welford_of_values(vals));
  }
  __device__ __forceinline__ void scalar(float x) { welford_push(state, x - pivot); }
};

// --- kernel bodies: block b owns row b ------------------------------------------------------------
// Launch for all three: blockDim.x == BLOCK (a power of two in [32, 1024]), gridDim.x == rows,
// cols >= 1. Thread 0 writes mean_out[b] and var_out[b] (float32).

// Two reads of the row (the second mostly from L2 for rows in flight), 2 __syncthreads,
// 2 * 4 * BLOCK/32 bytes of shared memory.
template <int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void row_moments_two_pass(const T* __restrict__ x,         // rows x cols
                                                     float* __restrict__ mean_out,  // rows
                                                     float* __restrict__ var_out,   // rows
                                                     int cols) {
  __shared__ typename BlockAllReduceState<BLOCK, float>::TempStorage temp_sum;
  __shared__ typename BlockReduceWarpShuffle<BLOCK, Sum>::TempStorage temp_sq;  // apart: no barrier between
  const int row = static_cast<int>(blockIdx.x);
  const T* row_ptr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  const bool vector_path = rows_are_vector_aligned(x, cols);
  const int tid = static_cast<int>(threadIdx.x);

  RowSumVisitor<UNROLL, T> sum;
  visit_row_segment<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, tid, vector_path, sum);
  const float total = BlockAllReduceState<BLOCK, float>(temp_sum).all_reduce(sum.acc, Sum{});
  const float mean = div_by_count(total, static_cast<float>(cols));

  RowSquaredDeviationVisitor<UNROLL, T> dev(mean);
  visit_row_segment<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, tid, vector_path, dev);
  const float m2 = BlockReduceWarpShuffle<BLOCK, Sum>(temp_sq).reduce(dev.acc, Sum{});  // thread 0
  if (tid == 0) {
    mean_out[row] = mean;
    var_out[row] = div_by_count(m2, static_cast<float>(cols));
  }
}

// One read, 1 __syncthreads, 8 * BLOCK/32 bytes of shared memory. CAUTIONARY (see the top).
template <int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void row_moments_naive_sum_sumsq(const T* __restrict__ x,         // rows x cols
                                                            float* __restrict__ mean_out,  // rows
                                                            float* __restrict__ var_out,   // rows
                                                            int cols) {
  __shared__ typename BlockAllReduceState<BLOCK, SumSumSq>::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const T* row_ptr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  RowSumSumSqVisitor<UNROLL, T> v;
  visit_row_segment<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, static_cast<int>(threadIdx.x), rows_are_vector_aligned(x, cols), v);
  const SumSumSq r = BlockAllReduceState<BLOCK, SumSumSq>(temp).all_reduce(v.acc, SumSumSqMerge{});
  if (threadIdx.x == 0) {
    const float n = static_cast<float>(cols);
    const float mean = div_by_count(r.sum, n);
    mean_out[row] = mean;
    var_out[row] = div_by_count(r.sumsq, n) - mean * mean;  // the cancellation, unguarded: it can be negative
  }
}

// One read, 1 __syncthreads, 12 * BLOCK/32 bytes of shared memory; SHIFT adds one broadcast load
// of the row's first element.
template <int BLOCK, int UNROLL, bool SHIFT, typename T>
__device__ __forceinline__ void row_moments_welford_chan(const T* __restrict__ x,         // rows x cols
                                                         float* __restrict__ mean_out,  // rows
                                                         float* __restrict__ var_out,   // rows
                                                         int cols) {
  __shared__ typename BlockAllReduceState<BLOCK, WelfordState>::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const T* row_ptr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  const float pivot = SHIFT ? to_float(row_ptr[0]) : 0.0f;  // cols >= 1: in bounds
  RowWelfordVisitor<UNROLL, T> v(pivot);
  visit_row_segment<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, static_cast<int>(threadIdx.x), rows_are_vector_aligned(x, cols), v);
  const WelfordState r = BlockAllReduceState<BLOCK, WelfordState>(temp).all_reduce(v.state, ChanMerge{});
  if (threadIdx.x == 0) {
    mean_out[row] = r.mean + pivot;
    var_out[row] = div_by_count(r.m2, r.count);
  }
}

}  // namespace epl
