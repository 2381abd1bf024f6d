// epl/policy/two_reductions.cuh — softmax and log-softmax on a row held in registers by two plain
// all-reduces (the row's max, then the sum of exp(x - max)) instead of one all-reduce of the
// mergeable (m, l) state.
//
// Records: catalog/realizations/{softmax,log-softmax}/two-reduction-registers.yaml.
//
// Once the whole row is resident, nothing needs an online state: the row max is a Max all-reduce
// (FMNMX per butterfly step) and, against it, each value takes exactly one exponential, summed by a
// Sum all-reduce (FADD per step). The state merge of epl/policy/ops.cuh (SoftmaxRow) instead puts two
// exponentials, a select and an FMA into every butterfly step (the rescaling of both sides), plus
// one exponential per thread for its scale: a longer dependent chain per row, paid while the
// warp's loads are done and its registers held. Numerics: x - m exact where it matters, as in
// ops.cuh, then exp_flush (epl/thread/exp.cuh: __expf's values, results below 2^-126 flushed to 0,
// three instructions fewer an element); the row sum in a different order; an all -inf row gives
// m = -inf, shift 0, l = 0, and the zero (softmax) or -inf (log-softmax) convention as in ops.cuh.
#pragma once

#include "../thread/exp.cuh"
#include "ops.cuh"

namespace epl {

// The row max and sum of exp(x - shift(max)); values rewritten in place as exp(x - shift).
template <typename Share, typename Group>
__device__ __forceinline__ SoftmaxState softmax_two_reductions(Share& share, Group& group) {
  const float m = group.all_reduce(share.reduce([](float v) { return v; }, Max{}), Max{});
  const float shift = softmax_shift(m);
  share.transform([shift](float v) { return exp_flush(v - shift); });
  const float l = group.all_reduce(share.reduce([](float e) { return e; }, Sum{}), Sum{});
  return SoftmaxState{m, l};
}

// y = exp(x - m) / l: one exponential per element (kept in the share), one multiply at the store.
struct SoftmaxRowTwoReductions {
  static constexpr int kParams = 0;
  struct Row {
    float inv_l;
  };
  template <typename Share, typename Group>
  __device__ __forceinline__ Row stats(Share& share, Group& group, int) const {
    return Row{softmax_inv_l(softmax_two_reductions(share, group).l)};
  }
  __device__ __forceinline__ float apply(float e, const Row& r, float, float) const { return e * r.inv_l; }
};

// y = (x - m) - log l. The exponentials are needed for l only; x itself is kept for the store.
struct LogSoftmaxRowTwoReductions {
  static constexpr int kParams = 0;
  struct Row {
    float shift, log_l;
  };
  template <typename Share, typename Group>
  __device__ __forceinline__ Row stats(const Share& share, Group& group, int) const {
    const float m = group.all_reduce(share.reduce([](float v) { return v; }, Max{}), Max{});
    const float shift = softmax_shift(m);
    const float l = group.all_reduce(share.reduce([shift](float v) { return exp_flush(v - shift); }, Sum{}), Sum{});
    return Row{shift, softmax_log_l(l)};
  }
  __device__ __forceinline__ float apply(float x, const Row& r, float, float) const { return (x - r.shift) - r.log_l; }
};

}  // namespace epl
