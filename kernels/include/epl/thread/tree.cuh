// epl/thread/tree.cuh — the pairwise tree of one thread: K values in registers combined in log2(K)
// dependent steps instead of K.
//
// The one tree of the basis: a 16-byte vector's elements (fold_vec16, under every row and grid
// fold), a register share's vectors (group/share.cuh) and a load round's chunk all combine in this
// order, a[i] = op(a[i], a[i + W]) for W = K/2, K/4, ..., 1, so results that must agree bit for bit
// across realizations (persistent-rows and block-per-row, say) do by construction.
#pragma once

#include "widen.cuh"

namespace epl {

// a[0] = op over a[0, 2 * W), pairwise (one template level per tree level, so it fully unrolls).
template <int W, int K, typename Op>
__device__ __forceinline__ void tree_in_place(float (&a)[K], Op op) {
  static_assert(2 * W <= K, "the tree spans more values than the array holds");
  if constexpr (W > 0) {
#pragma unroll
    for (int i = 0; i < W; ++i) a[i] = op(a[i], a[i + W]);
    tree_in_place<W / 2>(a, op);
  }
}

// The elements of one 16-byte vector widened to float32 (exact) and combined as a pairwise tree.
template <typename T, typename Op>
__device__ __forceinline__ float fold_vec16(const Vec16<T>& v, Op op) {
  constexpr int N = Vec16<T>::N;
  float a[N];
  widen_vec16(v, a);
  tree_in_place<N / 2>(a, op);
  return a[0];
}

}  // namespace epl
