// epl/policy/values.cuh — the row operators with one value out per row, as policies of
// rows_to_values (epl/body/stream.cuh): each finishes the row's merged softmax state (m, l).
//
// Records: catalog/realizations/{logsumexp,cross-entropy}/.
//   LogSumExpValue          out[r] = m + log l.
//   CrossEntropyValue       out[r] = m + log l - x[r, target[r]]; 0 for an ignored row, NaN for a
//                           target outside the row.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/softmax_state.cuh"

namespace epl {

// log(sum_j exp(x_j)) = m + log(l), with torch's special cases: an all -inf row gives -inf (m = -inf,
// l = 0), a row holding +inf gives +inf (l is NaN there, from exp(inf - inf)), a row holding a NaN
// gives NaN (fmaxf drops it from m, but l = NaN). A row holding both +inf and NaN gives +inf, where
// torch's max keeps the NaN.
__device__ __forceinline__ float logsumexp_of(const SoftmaxState& s) {
  if (s.m == softmax_pos_inf()) return s.m;
  return s.l != 0.0f ? s.m + logf(s.l) : softmax_neg_inf();
}

// out[r] = logsumexp(x[r, :]).
struct LogSumExpValue {
  struct Ahead {};
  __device__ __forceinline__ Ahead ahead(bool, int) const { return {}; }
  __device__ __forceinline__ float finish(const SoftmaxState& s, int, Ahead) const { return logsumexp_of(s); }
};

// out[r] = logsumexp(x[r, :]) - x[r, target[r]] (the loss of one row, reduction none), formed as
// (m - x_t) + log l: m - x_t is exact when the logits are large and close (Sterbenz), where
// rounding m + log l first (about 1e4 in an offset row) loses half an ulp of 1e4 in a loss of
// about 10. The target logit is two dependent loads (target[r], then x[r, t]), by the leader only.
// AHEAD = false: after the all-reduce (a line the fold has just read), where the block waits for
// both round trips before it exits.
// AHEAD = true: before the fold, where they run under the fold's loads, but x_t then holds one
// register in every thread through the fold (a cost where the fold sits at a residency threshold).
// A target equal to ignore_index (a padded position) gives 0, and one outside [0, cols) gives NaN
// (PyTorch raises): the logit load is skipped, so nothing outside the row is read. finish reads
// target[r] again (with AHEAD, an L1 hit; without, the same load target_logit makes): a flag held
// through the fold would cost every thread a register.
template <typename T, bool AHEAD = false>
struct CrossEntropyValue {
  const T* __restrict__ x;
  const long long* __restrict__ target;
  int cols;
  int ignore_index;
  struct Ahead {
    float x_t;  // AHEAD only; a constant otherwise, which holds no register
  };
  // x[row, t]; NaN for a target outside the row (never loaded), 0 for an ignored one (unused).
  __device__ __forceinline__ float target_logit(int row) const {
    const long long t = target[row];
    if (t == ignore_index) return 0.0f;
    if (t < 0 || t >= cols) return __int_as_float(0x7fffffff);
    return to_float(x[static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(t)]);
  }
  __device__ __forceinline__ Ahead ahead(bool leads, int row) const {
    if constexpr (AHEAD) {
      return {leads ? target_logit(row) : 0.0f};
    } else {
      return {0.0f};
    }
  }
  __device__ __forceinline__ float finish(const SoftmaxState& s, int row, Ahead a) const {
    if (target[row] == ignore_index) return 0.0f;
    const float x_t = AHEAD ? a.x_t : target_logit(row);
    return (s.m - x_t) + logf(s.l);  // a row with a finite target logit has l >= exp(x_t - m) > 0
  }
};

}  // namespace epl
