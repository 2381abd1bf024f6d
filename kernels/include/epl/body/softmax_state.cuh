// epl/body/softmax_state.cuh — rows of a row-major [rows, cols] matrix folded into (m, l) states.
//
// Records: catalog/realizations/online-max-accumulation/{online-block,online-warp,online-group,
//          two-pass}.yaml.
//
// Each thread folds its share of the row (visit_row_segment, epl/group/visit.cuh: LANES threads
// share a segment, every LANES-th 16-byte vector per thread, UNROLL loads in flight) as register
// CHUNKS: a full round of UNROLL vectors is one chunk of UNROLL * 16 / sizeof(T) elements (chunk
// max, one rescale, one exp per element), a vector of the ragged last round is one chunk of
// 16 / sizeof(T), and an element of the scalar path (rows not 16-byte aligned) is a chunk of one
// (two exps per element there). The per-thread states are then merged across the row's lanes.
// Orders are fixed: results are bitwise reproducible for fixed LANES, UNROLL and path.
#pragma once

#include "../block/reduce_state.cuh"
#include "../group/fold.cuh"  // rows_are_vector_aligned
#include "../group/visit.cuh"
#include "../thread/convert.cuh"
#include "../thread/load_evict.cuh"
#include "../thread/ops.cuh"
#include "../thread/softmax_state.cuh"
#include "../thread/widen.cuh"
#include "../util.cuh"
#include "../warp/reduce_state.cuh"

namespace epl {

// The UNROLL vectors of a full round as one register chunk of floats (exact widening).
template <typename T, int U>
__device__ __forceinline__ void widen_round(const Vec16<T> (&v)[U], float (&c)[U * Vec16<T>::N]) {
#pragma unroll
  for (int u = 0; u < U; ++u) widen_vec16(v[u], c + u * Vec16<T>::N);
}

// Widens a full round into c and returns its max (the widened chunk's pairwise tree).
template <typename T, int U>
__device__ __forceinline__ float widen_round_max(const Vec16<T> (&v)[U], float (&c)[U * Vec16<T>::N]) {
  widen_round(v, c);
  return softmax_max_chunk(c);
}

// The max of a bf16 round on its packed pairs before they are widened: max.bf16x2 is exact (the
// float max, up to the sign of a zero), and a tree over U * 4 pairs is half the FMNMX of one over
// U * 8 floats.
// It widens into c after the max, as the float overload does; a caller that needs only the max
// (MaxVisitor, pass 1 of two-pass softmax) leaves c unread and the compiler drops the widening.
// (experiment 0017-bf16-stream-fold: bf16 logsumexp 40 registers instead of 56, and up to
// +13% with exp_flush beside it.)
template <int U>
__device__ __forceinline__ float widen_round_max(const Vec16<__nv_bfloat16> (&v)[U], float (&c)[U * 8]) {
  static_assert(is_pow2(U), "a round of U vectors, U a power of two");
  __nv_bfloat162 t[U * 4];
#pragma unroll
  for (int u = 0; u < U; ++u) {
#pragma unroll
    for (int k = 0; k < 4; ++k) t[u * 4 + k] = reinterpret_cast<const __nv_bfloat162*>(v[u].v)[k];
  }
#pragma unroll
  for (int w = U * 2; w > 0; w /= 2) {  // constant trip counts, so it unrolls fully at any U
#pragma unroll
    for (int i = 0; i < U * 2; ++i) {
      if (i < w) t[i] = __hmax2(t[i], t[i + w]);
    }
  }
  const float m = fmaxf(__low2float(t[0]), __high2float(t[0]));
  widen_round(v, c);
  return m;
}

// Visitors for visit_row_segment. Each applies one chunk function (thread/softmax_state.cuh) to
// a full round, a single vector, or a single element alike.
// The online state: one read gives (m, l).
struct SoftmaxStateVisitor {
  SoftmaxState s;
  template <int K>
  __device__ __forceinline__ void chunk(const float (&c)[K]) { s = softmax_state_fold_chunk(s, c); }
  template <typename T, int U>
  __device__ __forceinline__ void round(const Vec16<T> (&v)[U]) {
    float c[U * Vec16<T>::N];
    const float chunk_max = widen_round_max(v, c);
    s = softmax_state_fold_chunk(s, c, chunk_max);
  }
  template <typename T>
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const Vec16<T> one[1] = {v};
    round(one);
  }
  __device__ __forceinline__ void scalar(float x) {
    const float c[1] = {x};
    chunk(c);
  }
};

// The max alone (pass 1 of two-pass).
struct MaxVisitor {
  float m;
  template <typename T, int U>
  __device__ __forceinline__ void round(const Vec16<T> (&v)[U]) {
    float c[U * Vec16<T>::N];
    m = fmaxf(m, widen_round_max(v, c));
  }
  template <typename T>
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const Vec16<T> one[1] = {v};
    round(one);
  }
  __device__ __forceinline__ void scalar(float x) { m = fmaxf(m, x); }
};

// The sum of exp(x - shift) against a fixed shift (pass 2 of two-pass).
struct ExpSumVisitor {
  float shift;
  float l;
  template <typename T, int U>
  __device__ __forceinline__ void round(const Vec16<T> (&v)[U]) {
    float c[U * Vec16<T>::N];
    widen_round(v, c);
    l += softmax_exp_sum_chunk(c, shift);
  }
  template <typename T>
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const Vec16<T> one[1] = {v};
    round(one);
  }
  __device__ __forceinline__ void scalar(float x) { l += exp_flush(x - shift); }
};

// This thread's (m, l) of its share of seg[0, n): one read, identity if it has no element.
// Walk: a SegmentWalk, as for visit_row_segment.
template <typename Walk, typename T>
__device__ __forceinline__ SoftmaxState fold_row_softmax_state(const T* __restrict__ seg, int n, int lane,
                                                               bool vector_path) {
  SoftmaxStateVisitor v{softmax_state_identity()};
  visit_row_segment<Walk>(seg, n, lane, vector_path, v);
  return v.s;
}

// Body of a kernel with one row per group of GROUP consecutive lanes (GROUP a power of two <= 32):
// block b owns rows [b * BLOCK/GROUP, (b+1) * BLOCK/GROUP) ∩ [0, rows). Each lane folds its share
// online; warp_allreduce_state<GROUP> merges the group's states (log2(GROUP) steps of 2 SHFL.BFLY
// and one merge); the group's first lane writes m[row], l[row]. No shared memory, no barrier.
// Launch: blockDim.x == BLOCK, gridDim.x == ceil_div(rows, BLOCK / GROUP).
template <int GROUP, int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void row_softmax_state_lane_groups(const T* __restrict__ x,  // rows x cols
                                                              float* __restrict__ m_out,  // rows
                                                              float* __restrict__ l_out,  // rows
                                                              int rows, int cols) {
  static_assert(is_pow2(GROUP) && GROUP <= kWarpThreads, "GROUP must be a power of two <= 32");
  static_assert(BLOCK % kWarpThreads == 0, "BLOCK must be whole warps");
  constexpr int ROWS_PER_BLOCK = BLOCK / GROUP;
  const int row = static_cast<int>(blockIdx.x) * ROWS_PER_BLOCK + static_cast<int>(threadIdx.x) / GROUP;
  const bool has_row = row < rows;
  const T* row_ptr = x + static_cast<size_t>(has_row ? row : 0) * static_cast<size_t>(cols);
  const int lane = static_cast<int>(threadIdx.x) & (GROUP - 1);
  // Groups past the last row fold nothing (the identity) but still take part in the shuffles.
  SoftmaxState s = fold_row_softmax_state<SegmentWalk<GROUP, UNROLL>>(row_ptr, has_row ? cols : 0, lane,
                                                         rows_are_vector_aligned(x, cols));
  s = warp_allreduce_state<GROUP>(s, MergeSoftmaxState{});
  if (has_row && lane == 0) {
    m_out[row] = s.m;
    l_out[row] = s.l;
  }
}

// Body of a kernel with one row per block, one read: thread t folds every BLOCK-th vector online,
// BlockAllReduceState merges the BLOCK states (one __syncthreads), thread 0 writes m[b], l[b].
// Launch: blockDim.x == BLOCK (a power of two in [32, 1024]), gridDim.x == rows.
template <int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void row_softmax_state_blocks(const T* __restrict__ x,  // rows x cols
                                                         float* __restrict__ m_out,  // rows
                                                         float* __restrict__ l_out,  // rows
                                                         int cols) {
  using Reduce = BlockAllReduceState<BLOCK, SoftmaxState>;
  __shared__ typename Reduce::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const T* row_ptr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  SoftmaxState s = fold_row_softmax_state<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, static_cast<int>(threadIdx.x),
                                                         rows_are_vector_aligned(x, cols));
  s = Reduce(temp).all_reduce(s, MergeSoftmaxState{});
  if (threadIdx.x == 0) {
    m_out[row] = s.m;
    l_out[row] = s.l;
  }
}

// Body of a kernel with one row per block, two reads of the row (safe softmax): pass 1 folds the
// max and all-reduces it (one __syncthreads); pass 2 rereads the row (from L2 if it stayed there)
// and sums exp(x - shift(m)), all-reduced through a second TempStorage (one more __syncthreads;
// separate storage, so no barrier between the two reductions).
// Launch: blockDim.x == BLOCK (a power of two in [32, 1024]), gridDim.x == rows.
template <int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void row_softmax_state_two_pass_blocks(const T* __restrict__ x,  // rows x cols
                                                                  float* __restrict__ m_out,  // rows
                                                                  float* __restrict__ l_out,  // rows
                                                                  int cols) {
  using Reduce = BlockAllReduceState<BLOCK, float>;
  __shared__ typename Reduce::TempStorage max_temp;
  __shared__ typename Reduce::TempStorage sum_temp;
  const int row = static_cast<int>(blockIdx.x);
  const int t = static_cast<int>(threadIdx.x);
  const T* row_ptr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  const bool vector_path = rows_are_vector_aligned(x, cols);
  MaxVisitor mv{softmax_neg_inf()};
  visit_row_segment<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, t, vector_path, mv);
  const float m = Reduce(max_temp).all_reduce(mv.m, Max{});
  ExpSumVisitor ev{softmax_shift(m), 0.0f};
  visit_row_segment<SegmentWalk<BLOCK, UNROLL>>(row_ptr, cols, t, vector_path, ev);
  const float l = Reduce(sum_temp).all_reduce(ev.l, Sum{});
  if (t == 0) {
    m_out[row] = m;
    l_out[row] = l;
  }
}

}  // namespace epl
