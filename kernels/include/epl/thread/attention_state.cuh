// epl/thread/attention_state.cuh — the streaming state (m, l, acc) of a softmax-weighted sum.
//
// Records: catalog/primitives/streaming/streaming-weighted-reduction.yaml and split-state-merge.yaml.
//
// A state summarizes the keys seen so far as m = max s_j, l = sum_j exp(s_j - m) and
// acc = sum_j exp(s_j - m) * v_j (W components of it: one thread's share of the value vector).
// It extends the (m, l) state of thread/softmax_state.cuh with the value accumulator, under the
// same rules: every exponential is taken against a SHIFT (m, or 0 when m = -inf), so masked keys
// (-inf), empty chunks and identity states need no branch and never produce NaN; arguments are
// formed as (s - shift) before exp_flush (exact where s and the shift are large and close; thread/exp.cuh
// says why a flushed exponential is enough for terms of a sum against its max).
// o = acc / l and lse = m + log l at the end; the empty state gives o = 0, lse = -inf.
#pragma once

#include "softmax_state.cuh"

namespace epl {

template <int W>
struct AttentionState {
  float m;       // running max of the scores (-inf: no key yet)
  float l;       // sum of exp(s - m)
  float acc[W];  // sum of exp(s - m) * v, this thread's W components

  static __device__ __forceinline__ AttentionState identity() {
    AttentionState s;
    s.m = softmax_neg_inf();
    s.l = 0.0f;
#pragma unroll
    for (int w = 0; w < W; ++w) s.acc[w] = 0.0f;
    return s;
  }
};

// Folds a chunk of U keys: their scores (the same in every thread of a key's group) and this
// thread's W value components of each. One rescale of (l, acc) per chunk, one exponential per key.
template <int W, int U>
__device__ __forceinline__ void attention_fold_chunk(AttentionState<W>& st, const float (&s)[U],
                                                     const float (&v)[U][W]) {
  float cm = s[0];
#pragma unroll
  for (int u = 1; u < U; ++u) cm = fmaxf(cm, s[u]);
  const float m = fmaxf(st.m, cm);
  const float shift = softmax_shift(m);
  const float scale = exp_flush(st.m - shift);  // 0 for the identity, 1 when the max did not move
  st.m = m;
  st.l *= scale;
#pragma unroll
  for (int w = 0; w < W; ++w) st.acc[w] *= scale;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const float p = exp_flush(s[u] - shift);  // 0 for a masked key
    st.l += p;
#pragma unroll
    for (int w = 0; w < W; ++w) st.acc[w] = fmaf(p, v[u][w], st.acc[w]);
  }
}

// The merge of two states (of disjoint key sets): two exponentials, W + 1 multiply-adds.
template <int W>
__device__ __forceinline__ AttentionState<W> attention_merge(const AttentionState<W>& a, const AttentionState<W>& b) {
  const float m = fmaxf(a.m, b.m);
  const float shift = softmax_shift(m);
  const float sa = exp_flush(a.m - shift);
  const float sb = exp_flush(b.m - shift);
  AttentionState<W> r;
  r.m = m;
  r.l = a.l * sa + b.l * sb;
#pragma unroll
  for (int w = 0; w < W; ++w) r.acc[w] = a.acc[w] * sa + b.acc[w] * sb;
  return r;
}

}  // namespace epl
