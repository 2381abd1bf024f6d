// epl/thread/welford.cuh — the mergeable (count, mean, M2) state of mean and variance, one thread.
//
// Record: catalog/primitives/streaming/mergeable-statistics.yaml
//
// WelfordState summarizes a multiset of values: count n, mean, M2 = sum (x - mean)^2, so that
// variance = M2 / n (population) and mean need no second look at the data. Three ways in:
//   welford_push(s, x)        Welford's per-element update (a division per element);
//   welford_of_values<K>(v)   the state of K values already in registers, by an in-register
//                             two-pass (mean = tree sum * (1/K), then sum (v - mean)^2): exact
//                             centring, no division when K is a power of two;
//   ChanMerge{}(a, b)         Chan's merge of two states (a division per merge).
// A thread streaming a row builds the state of each loaded chunk with welford_of_values and merges
// it into its running state (one division per chunk, not per element); warps and blocks merge the
// thread states with warp_allreduce_state / BlockAllReduceState and ChanMerge.
//
// Accuracy in float32: the in-register centring is exact up to rounding of the deviations, so a
// chunk's M2 does not cancel however large |mean| / std is. What remains is the rounding of the
// means themselves (an ulp of |mean|) entering the merge's delta = mean_b - mean_a: the error of
// the variance grows like eps * |mean| / std (linear), where the (sum x, sum x^2) form grows like
// eps * (|mean| / std)^2. Centring the data on a pivot near the mean first (a shift, e.g. the row's
// first element; see welford_shifted in epl/body/moments.cuh) removes that remainder.
//
// The merge identity is {0, 0, 0}: ChanMerge returns the other operand unchanged when one side is
// empty (and {0, 0, 0} when both are), so threads with no data take part with the identity.
// Counts are float32: exact up to 2^24 values per state. Finite inputs only (an inf makes the
// state NaN, as it makes the variance undefined); |mean| below ~1e19 (delta^2 must stay finite).
#pragma once

#include "convert.cuh"
#include "load.cuh"
#include "widen.cuh"

namespace epl {

// a / b for 0 < b < 2^126 by MUFU.RCP and one multiply (within 2 ulp). The IEEE `/` inlines a fast
// path plus a CALL to a slow-path subroutine whose calling convention saves live registers to
// local memory (STL/LDL) inside the streaming loop; the divisors here are counts (exact integers
// up to 2^24), always in range.
__device__ __forceinline__ float div_by_count(float a, float b) { return __fdividef(a, b); }

// Twelve bytes: three 32-bit words, which is what shfl_xor_state moves per butterfly step.
struct WelfordState {
  float count;  // number of values summarized (exact integer up to 2^24)
  float mean;   // their mean
  float m2;     // sum of squared deviations from `mean`

  static __device__ __forceinline__ WelfordState identity() { return WelfordState{0.0f, 0.0f, 0.0f}; }
};

// Chan, Golub and LeVeque's pairwise merge. Associative up to rounding, not bitwise commutative:
// warp_allreduce_state calls it in a canonical order (lower lane first).
// Cost: one MUFU.RCP division, 5 FFMA/FMUL/FADD-class ops, one select.
struct ChanMerge {
  __device__ __forceinline__ WelfordState operator()(const WelfordState& a, const WelfordState& b) const {
    const float n = a.count + b.count;
    const float w = n > 0.0f ? div_by_count(b.count, n) : 0.0f;  // share of b; 0 when both are empty (no 0/0)
    const float delta = b.mean - a.mean;
    WelfordState r;
    r.count = n;
    r.mean = fmaf(delta, w, a.mean);                    // a.mean + delta * n_b / n
    r.m2 = fmaf(delta * delta, a.count * w, a.m2 + b.m2);  // + delta^2 * n_a * n_b / n
    return r;
  }
};

// Welford's update with one value: the merge with the state {1, x, 0}, written out.
// Cost: one MUFU.RCP division, 4 ops.
__device__ __forceinline__ void welford_push(WelfordState& s, float x) {
  s.count += 1.0f;
  const float delta = x - s.mean;
  s.mean += div_by_count(delta, s.count);
  s.m2 = fmaf(delta, x - s.mean, s.m2);
}

// s[0] = pairwise tree sum of s[0, 2 * W). One template level per tree level: a nested loop over
// levels is left partly rolled by the compiler for 32 or 64 values, which puts the array in local
// memory (LDL/STL with computed addresses).
template <int W, int K>
__device__ __forceinline__ void tree_sum_in_place(float (&s)[K]) {
  if constexpr (W > 0) {
#pragma unroll
    for (int i = 0; i < W; ++i) s[i] += s[i + W];
    tree_sum_in_place<W / 2>(s);
  }
}

// The state of K values in registers (K a power of two): mean by a pairwise tree sum times 1/K
// (exact scaling), M2 by a pairwise tree of the squared deviations from that mean.
template <int K>
__device__ __forceinline__ WelfordState welford_of_values(const float (&v)[K]) {
  static_assert(K >= 1 && (K & (K - 1)) == 0, "welford_of_values: K must be a power of two");
  float s[K];
#pragma unroll
  for (int i = 0; i < K; ++i) s[i] = v[i];
  tree_sum_in_place<K / 2>(s);
  const float mean = s[0] * (1.0f / static_cast<float>(K));
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const float d = v[i] - mean;
    s[i] = d * d;
  }
  tree_sum_in_place<K / 2>(s);
  return WelfordState{static_cast<float>(K), mean, s[0]};
}

// The values of UNROLL 16-byte vectors widened to float32 and shifted by -pivot (0 for none),
// in one register array of UNROLL * N floats, N = 16 / sizeof(T).
template <int UNROLL, typename T>
__device__ __forceinline__ void widen_vectors(const Vec16<T> (&v)[UNROLL], float pivot,
                                              float (&out)[UNROLL * Vec16<T>::N]) {
  constexpr int N = Vec16<T>::N;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    widen_vec16(v[u], out + u * N);
#pragma unroll
    for (int i = 0; i < N; ++i) out[u * N + i] -= pivot;
  }
}

}  // namespace epl
