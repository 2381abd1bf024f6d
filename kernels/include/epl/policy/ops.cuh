// epl/policy/ops.cuh — the row operators, as policies for the bodies of epl/body/resident.cuh (a row
// in, a row out, held in registers) and epl/body/stream.cuh (a row in, one value out, streamed).
//
// Records: catalog/realizations/{softmax,log-softmax,rmsnorm,layernorm,logsumexp,cross-entropy}/.
//
// Each operator is written once from the verified building blocks — the (m, l) state and its
// -inf-guarded merge and chunk fold (thread/softmax_state.cuh), Chan's merge of (count, mean, M2)
// (thread/welford.cuh), sums — and says only what is its own: the per-thread state of its share,
// how the row's constants follow from the merged state, and the per-element expression.
// All arithmetic is float32; the output is rounded to T once, at the store.
#pragma once

#include "../group/share.cuh"  // ReadsRowHead
#include "../thread/ops.cuh"
#include "../thread/softmax_state.cuh"
#include "../thread/tree.cuh"
#include "../thread/welford.cuh"
#include "../util.cuh"
#include "../warp/reduce_state.cuh"

namespace epl {

// a / n for a row length n (exact integer < 2^24 as float32 here), within 2 ulp, no slow-path CALL.
__device__ __forceinline__ float per_element(float a, int n) { return __fdividef(a, static_cast<float>(n)); }

// The (m, l) state of a thread's share held in registers. The values are all resident, so the
// thread needs no online rescaling: its max first, then one exponential per value against it (the
// two-pass order of online-max-accumulation/two-pass, on registers instead of memory); the states
// of the threads then merge with the rescaling merge. A thread with no value keeps (-inf, 0).
template <typename Share>
__device__ __forceinline__ SoftmaxState softmax_state_of(const Share& share) {
  const float m = share.reduce([](float v) { return v; }, Max{});
  const float shift = softmax_shift(m);
  return SoftmaxState{m, share.reduce([shift](float v) { return exp_flush(v - shift); }, Sum{})};
}

// Sum over a thread's share of f(x) for the values in range, pairwise.
template <typename Share, typename F>
__device__ __forceinline__ float share_sum(const Share& share, F f) {
  return share.reduce(f, Sum{});
}

// --- a row in, a row out ------------------------------------------------------------------------

// y = exp(x - m) / l; an all -inf row gives zeros, a -inf element 0.
// One exponential per element: the thread's values are rewritten in place as e = exp(x - m_t)
// against its own max m_t, summed into l_t, and after the merge y = e * (exp(m_t - m) / l), one
// multiply per element (the store does not recompute exp(x - m)).
struct SoftmaxRow {
  static constexpr int kParams = 0;
  struct Row {
    float scale;  // exp(m_t - m) / l for this thread's values; 0 for a thread of -inf only
  };
  template <typename Share, typename Group>
  __device__ __forceinline__ Row stats(Share& share, Group& group, int) const {
    const float m_t = share.reduce([](float v) { return v; }, Max{});
    const float shift_t = softmax_shift(m_t);
    share.transform([shift_t](float v) { return exp_flush(v - shift_t); });
    const float l_t = share.reduce([](float e) { return e; }, Sum{});
    const SoftmaxState s = group.all_reduce(SoftmaxState{m_t, l_t}, MergeSoftmaxState{});
    return Row{m_t == softmax_neg_inf() ? 0.0f : exp_flush(m_t - softmax_shift(s.m)) * softmax_inv_l(s.l)};
  }
  __device__ __forceinline__ float apply(float e, const Row& r, float, float) const { return e * r.scale; }
};

// y = x - m - log(l), as (x - m) - log(l); a -inf element gives -inf, an all -inf row all -inf
// (log l is taken as 0 when l = 0, so -inf - shift stays -inf).
struct LogSoftmaxRow {
  static constexpr int kParams = 0;
  struct Row {
    float shift, log_l;
  };
  template <typename Share, typename Group>
  __device__ __forceinline__ Row stats(const Share& share, Group& group, int) const {
    return of_state(group.all_reduce(softmax_state_of(share), MergeSoftmaxState{}));
  }
  // The row's constants from its merged (m, l), however it was folded (registers or a stream).
  __device__ __forceinline__ static Row of_state(const SoftmaxState& s) {
    return Row{softmax_shift(s.m), softmax_log_l(s.l)};
  }
  __device__ __forceinline__ float apply(float x, const Row& r, float, float) const {
    return (x - r.shift) - r.log_l;
  }
};

// y = x * rsqrt(mean(x^2) + eps) * w.
struct RmsNormRow {
  static constexpr int kParams = 1;  // weight
  float eps;
  struct Row {
    float rstd;
  };
  template <typename Share, typename Group>
  __device__ __forceinline__ Row stats(const Share& share, Group& group, int cols) const {
    return of_sum_squares(group.all_reduce(share_sum(share, [](float v) { return v * v; }), Sum{}), cols);
  }
  // The row's constant from its all-reduced sum of squares, however it was folded.
  __device__ __forceinline__ Row of_sum_squares(float ss, int cols) const {
    return Row{rsqrtf(per_element(ss, cols) + eps)};
  }
  __device__ __forceinline__ float apply(float x, const Row& r, float w, float) const { return x * r.rstd * w; }
};

// How layernorm gets (mean, variance) from the registers: the statistics realizations of
// mergeable-statistics, each as it behaves on a row held in registers. The two accurate ones pivot
// on the row's first element p (share.head, ReadsRowHead): they fold d = x - p, so a constant row
// has every d exactly 0 and gives mean = p and variance 0 exactly (y = bias bit for bit, as torch),
// and p, an element of the row, is within its spread of the mean, so the shift never costs bits.
//   LayerNormTwoPass      mean = p + E[d] (one all-reduce), then the squared deviations from it (a
//                         second): exact centring, no cancellation, two all-reduces.
//   LayerNormChan         each thread's (count, mean, M2) of d by an in-register two-pass, merged
//                         with Chan's rule: one all-reduce of a 12-byte state; error grows like
//                         u * |mean - p| / std through the merged means.
//   LayerNormSumSquares   (sum x, sum x^2), var = E[x^2] - E[x]^2: one all-reduce of 8 bytes, and
//                         catastrophic cancellation when |mean| >> std (the cautionary one: no
//                         pivot, on purpose; constant rows are not exact either).
struct LayerNormTwoPass {
  static constexpr bool kReadsRowHead = true;
  template <typename Share, typename Group>
  __device__ __forceinline__ float2 moments(const Share& share, Group& group, int cols) const {
    const float p = share.head;
    const float mean = p + per_element(group.all_reduce(share_sum(share, [p](float v) { return v - p; }), Sum{}), cols);
    const float m2 = group.all_reduce(share_sum(share, [mean](float v) { return (v - mean) * (v - mean); }), Sum{});
    return make_float2(mean, per_element(m2, cols));
  }
};

struct LayerNormChan {
  static constexpr bool kReadsRowHead = true;
  template <typename Share, typename Group>
  __device__ __forceinline__ float2 moments(const Share& share, Group& group, int) const {
    const int count = share.count();
    const float p = share.head;
    WelfordState s = WelfordState::identity();
    if (count > 0) {
      const float mean = per_element(share_sum(share, [p](float v) { return v - p; }), count);  // of x - p
      const float c = p + mean;  // the thread's mean of x (p itself on a constant row)
      s = WelfordState{static_cast<float>(count), mean, share_sum(share, [c](float v) { return (v - c) * (v - c); })};
    }
    s = group.all_reduce(s, ChanMerge{});
    return make_float2(p + s.mean, div_by_count(s.m2, s.count));
  }
};

struct SumPair {
  float sum, sum_sq;
};
struct MergeSumPair {
  __device__ __forceinline__ SumPair operator()(const SumPair& a, const SumPair& b) const {
    return SumPair{a.sum + b.sum, a.sum_sq + b.sum_sq};
  }
};
template <>
struct MergeCommutes<MergeSumPair> {  // two IEEE sums
  static constexpr bool value = true;
};

struct LayerNormSumSquares {
  template <typename Share, typename Group>
  __device__ __forceinline__ float2 moments(const Share& share, Group& group, int cols) const {
    SumPair p{share_sum(share, [](float v) { return v; }), share_sum(share, [](float v) { return v * v; })};
    p = group.all_reduce(p, MergeSumPair{});
    const float mean = per_element(p.sum, cols);
    return make_float2(mean, fmaxf(0.0f, per_element(p.sum_sq, cols) - mean * mean));
  }
};

// y = (x - mean) * rsqrt(var + eps) * w + b, population variance.
template <typename Stats>
struct LayerNormRow {
  static constexpr int kParams = 2;  // weight, bias
  static constexpr bool kReadsRowHead = ReadsRowHead<Stats>::value;  // the body fills share.head
  float eps;
  struct Row {
    float mean, rstd;
  };
  template <typename Share, typename Group>
  __device__ __forceinline__ Row stats(const Share& share, Group& group, int cols) const {
    const float2 mv = Stats{}.moments(share, group, cols);
    return of_moments(mv.x, mv.y);
  }
  // The row's constants from its mean and population variance, however they were folded.
  __device__ __forceinline__ Row of_moments(float mean, float var) const { return Row{mean, rsqrtf(var + eps)}; }
  __device__ __forceinline__ float apply(float x, const Row& r, float w, float b) const {
    return fmaf((x - r.mean) * r.rstd, w, b);
  }
};

}  // namespace epl
