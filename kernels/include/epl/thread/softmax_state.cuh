// epl/thread/softmax_state.cuh — the online-softmax state (m, l) of one thread: fold and merge.
//
// Record: catalog/primitives/streaming/online-max-accumulation.yaml.
//
// A state summarizes a set S of elements as m = max S and l = sum_{x in S} exp(x - m). The empty
// set (and a set of only -inf) is the identity (m = -inf, l = 0). Every exponential is taken
// against a SHIFT that is m itself, or 0 when m = -inf: then exp(-inf - shift) = 0 and no
// exp(-inf - (-inf)) = NaN can arise, so -inf elements, all -inf chunks and identity states need
// no branch. Arguments are formed as (x - shift) first and then exponentiated (FADD, then exp_flush:
// FMUL + MUFU.EX2, epl/thread/exp.cuh): x - shift is exact whenever x is within a factor 2 of the shift (Sterbenz),
// so magnitudes of 1e4 keep full relative accuracy. Pre-scaling by log2(e) into one FFMA would
// round m * log2(e) to ~1e-3 at |m| = 1e4 and is deliberately not done.
// Every rescale factor exp(m_old - m_new) is <= 1, so l never overflows (l <= element count).
// Inputs must not hold +inf or NaN (a +inf makes l NaN, as in PyTorch's softmax).
#pragma once

#include "exp.cuh"
#include "ops.cuh"
#include "tree.cuh"

namespace epl {

struct SoftmaxState {
  float m;  // running max (-inf for an empty set)
  float l;  // sum of exp(x - m) over the set (0 for an empty set)
};

__device__ __forceinline__ float softmax_neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ float softmax_pos_inf() { return __int_as_float(0x7f800000); }

// The merge identity: the state of the empty set.
__device__ __forceinline__ SoftmaxState softmax_state_identity() { return SoftmaxState{softmax_neg_inf(), 0.0f}; }

// The exponent shift of a state whose max is m: m, or 0 when m = -inf (the guard against NaN).
__device__ __forceinline__ float softmax_shift(float m) { return m == softmax_neg_inf() ? 0.0f : m; }

// Merge of two states: m = max(a.m, b.m), l = a.l exp(a.m - m) + b.l exp(b.m - m).
// Two MUFU.EX2, one FMNMX; both sides -inf gives the identity, never NaN. The form is symmetric
// in IEEE arithmetic; warp_allreduce_state still merges in canonical order.
struct MergeSoftmaxState {
  __device__ __forceinline__ SoftmaxState operator()(const SoftmaxState& a, const SoftmaxState& b) const {
    const float m = fmaxf(a.m, b.m);
    const float shift = softmax_shift(m);
    return SoftmaxState{m, a.l * exp_flush(a.m - shift) + b.l * exp_flush(b.m - shift)};
  }
};

// The sum of exp(v[i] - shift) over a chunk, pairwise (the second pass of two-pass softmax).
template <int K>
__device__ __forceinline__ float softmax_exp_sum_chunk(const float (&v)[K], float shift) {
  static_assert((K & (K - 1)) == 0, "chunk size must be a power of two");
  float e[K];
#pragma unroll
  for (int i = 0; i < K; ++i) e[i] = exp_flush(v[i] - shift);
  tree_in_place<K / 2>(e, Sum{});
  return e[0];
}

// The max of a chunk, pairwise.
template <int K>
__device__ __forceinline__ float softmax_max_chunk(const float (&v)[K]) {
  static_assert((K & (K - 1)) == 0, "chunk size must be a power of two");
  float t[K];
#pragma unroll
  for (int i = 0; i < K; ++i) t[i] = v[i];
  tree_in_place<K / 2>(t, Max{});
  return t[0];
}

// Folds a register chunk of K elements whose max is chunk_max into s (pad missing elements with
// -inf): one rescale of s.l, then one exp per element summed as a pairwise tree.
// Cost: K + 1 MUFU.EX2, K FADD + K FMUL for the arguments, K FADD for the tree.
template <int K>
__device__ __forceinline__ SoftmaxState softmax_state_fold_chunk(SoftmaxState s, const float (&v)[K], float chunk_max) {
  const float m = fmaxf(s.m, chunk_max);
  const float shift = softmax_shift(m);
  return SoftmaxState{m, s.l * exp_flush(s.m - shift) + softmax_exp_sum_chunk(v, shift)};
}

// The same with the chunk's max taken here (a pairwise tree of K FMNMX).
template <int K>
__device__ __forceinline__ SoftmaxState softmax_state_fold_chunk(SoftmaxState s, const float (&v)[K]) {
  return softmax_state_fold_chunk(s, v, softmax_max_chunk(v));
}

// 1 / l correctly rounded, or 0 for the empty state (l = 0, an all -inf row). The test is l != 0,
// not l > 0: a row holding a NaN has l = NaN (fmaxf drops the NaN from m, but exp(NaN - m) puts it
// into l), and it must come out all NaN as torch's does.
__device__ __forceinline__ float softmax_inv_l(float l) { return l != 0.0f ? __frcp_rn(l) : 0.0f; }

// log l, or 0 for the empty state (so that -inf - shift stays -inf); NaN for a row holding a NaN.
__device__ __forceinline__ float softmax_log_l(float l) { return l != 0.0f ? logf(l) : 0.0f; }

// y = exp(x - shift) * (1 / l) from a row's merged (m, l), for a row that is not held in registers
// (SoftmaxRow in epl/policy/ops.cuh rescales the exponentials its registers already hold; here every element
// is read again and gets its exponential at the store).
struct SoftmaxStreamRow {
  static constexpr int kParams = 0;
  struct Row {
    float shift, inv_l;
  };
  __device__ __forceinline__ static Row of_state(const SoftmaxState& s) {
    return Row{softmax_shift(s.m), softmax_inv_l(s.l)};
  }
  __device__ __forceinline__ float apply(float x, const Row& r, float, float) const { return exp_flush(x - r.shift) * r.inv_l; }
};

}  // namespace epl
