// epl/row/softmax.cuh — the softmax of the rows of a row-major [rows, cols] matrix, y = exp(x - m) / l.
//
// Records: catalog/realizations/softmax/{online-register-warp,online-block-reread}.yaml
//          (operator softmax, contract row-softmax).
//
// Composed from the verified online-max-accumulation pieces, none copied: the (m, l) state, its
// -inf-guarded merge and chunk fold (thread/softmax_state.cuh), the row fold and its 16-byte load
// loop (row/softmax_state.cuh, row/visit.cuh), the warp and block all-reduces of a state
// (warp/reduce_state.cuh, block/reduce_state.cuh). What is new here is the normalize stage
// (elementwise-chain-fusion): y = __expf(x - shift) * (1 / l), rounded to T once at the store, with
// the same __expf and shift the state was folded with, so the written row sums to l / l.
// Convention: an all -inf row (m = -inf, l = 0) is written as zeros (1 / l is taken as 0), never
// NaN; a -inf element gives exactly 0. Inputs must not hold +inf or NaN.
#pragma once

#include "softmax_state.cuh"

namespace epl {

// 1 / l correctly rounded, or 0 for the empty state (l = 0, an all -inf row): the zero convention.
__device__ __forceinline__ float softmax_inv_l(float l) { return l > 0.0f ? __frcp_rn(l) : 0.0f; }

// One output element: exp(x - shift) / l, as T (round to nearest even).
template <typename T>
__device__ __forceinline__ T softmax_normalize(float x, float shift, float inv_l) {
  return from_float<T>(__expf(x - shift) * inv_l);
}

// HAZARD: p must be 16-byte aligned and the 16 bytes in bounds (STG.E.128).
template <typename T>
__device__ __forceinline__ void store_16B_aligned(T* __restrict__ p, const Vec16<T>& v) {
  *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&v);
}

// A vector of N outputs from a vector of inputs.
template <typename T>
__device__ __forceinline__ Vec16<T> softmax_normalize_vec(const Vec16<T>& v, float shift, float inv_l) {
  Vec16<T> o;
#pragma unroll
  for (int k = 0; k < Vec16<T>::N; ++k) o.v[k] = softmax_normalize<T>(to_float(v.v[k]), shift, inv_l);
  return o;
}

// Both x and y can take 16-byte vectors: 16-byte aligned bases and cols a multiple of 16 / sizeof(T).
template <typename T>
__device__ __forceinline__ bool rows_are_vector_aligned(const T* x, const T* y, int cols) {
  return rows_are_vector_aligned(x, cols) && (reinterpret_cast<size_t>(y) & 15) == 0;
}

// The normalize pass over a row segment that is NOT held in registers: LANES threads share
// seg[0, n); thread `lane` rereads every LANES-th 16-byte vector (UNROLL loads in flight, as the
// fold's loop: the same vectors the fold read, so from L2 while the row stayed there) and writes
// its outputs; scalar path element by element. Cost: one more read and one write of the segment.
template <int LANES, int UNROLL, typename T>
__device__ __forceinline__ void write_row_softmax(const T* __restrict__ seg, T* __restrict__ out, int n, int lane,
                                                  bool vector_path, float shift, float inv_l) {
  if (vector_path) {
    constexpr int N = Vec16<T>::N;
    const int nv = n / N;
    int i = lane;
    for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned(seg + (i + u * LANES) * N);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) store_16B_aligned(out + (i + u * LANES) * N, softmax_normalize_vec(v[u], shift, inv_l));
    }
    for (; i < nv; i += LANES) store_16B_aligned(out + i * N, softmax_normalize_vec(load_16B_aligned(seg + i * N), shift, inv_l));
    return;
  }
  for (int j = lane; j < n; j += LANES) out[j] = softmax_normalize<T>(to_float(seg[j]), shift, inv_l);
}

// Body of a kernel with one row per warp, the row held in registers: each lane keeps K floats of
// its row (K / N vectors lane, lane + 32, ... on the vector path; elements lane, lane + 32, ... on
// the scalar path), padded with -inf; folds them as ONE register chunk (softmax_state_fold_chunk),
// warp_allreduce_state merges the 32 states (5 canonical-order butterfly steps), and the outputs
// are computed from the same registers: one read and one write of the row.
// Rows longer than 32 * K (the register capacity) are still computed, by the reread path: the
// online fold with UNROLL_LONG loads in flight, the butterfly, then write_row_softmax (two reads).
// Launch: blockDim.x == BLOCK (whole warps), gridDim.x == ceil_div(rows, BLOCK / 32).
template <int BLOCK, int K, typename T>
__device__ __forceinline__ void row_softmax_warp_registers(const T* __restrict__ x,  // rows x cols
                                                           T* __restrict__ y,        // rows x cols
                                                           int rows, int cols) {
  static_assert(BLOCK % kWarpThreads == 0, "BLOCK must be whole warps");
  constexpr int N = Vec16<T>::N;
  static_assert(is_pow2(K) && K % N == 0, "K must be a power of two and whole 16-byte vectors");
  constexpr int VECS = K / N;
  constexpr int UNROLL_LONG = 4;
  const int row = static_cast<int>(blockIdx.x) * (BLOCK / kWarpThreads) + static_cast<int>(threadIdx.x) / kWarpThreads;
  if (row >= rows) return;  // warp-uniform: the whole warp leaves, no lane misses a shuffle
  const int lane = lane_id();
  const T* xr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  T* yr = y + static_cast<size_t>(row) * static_cast<size_t>(cols);
  const bool vector_path = rows_are_vector_aligned(x, y, cols);
  if (cols > kWarpThreads * K) {  // beyond the register capacity: fold online, then reread
    SoftmaxState s = fold_row_softmax_state<kWarpThreads, UNROLL_LONG>(xr, cols, lane, vector_path);
    s = warp_allreduce_state(s, MergeSoftmaxState{});
    write_row_softmax<kWarpThreads, UNROLL_LONG>(xr, yr, cols, lane, vector_path, softmax_shift(s.m),
                                                 softmax_inv_l(s.l));
    return;
  }
  float c[K];  // this lane's share of the row, resident until the store
  if (vector_path) {
    const int nv = cols / N;
    Vec16<T> v[VECS];
#pragma unroll
    for (int k = 0; k < VECS; ++k) {  // every in-range load goes out before any is widened
      if (lane + k * kWarpThreads < nv) v[k] = load_16B_aligned(xr + (lane + k * kWarpThreads) * N);
    }
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const bool in = lane + k * kWarpThreads < nv;
#pragma unroll
      for (int e = 0; e < N; ++e) c[k * N + e] = in ? to_float(v[k].v[e]) : softmax_neg_inf();
    }
  } else {
#pragma unroll
    for (int e = 0; e < K; ++e) {
      const int j = lane + e * kWarpThreads;
      c[e] = j < cols ? to_float(xr[j]) : softmax_neg_inf();
    }
  }
  SoftmaxState s = softmax_state_fold_chunk(softmax_state_identity(), c);
  s = warp_allreduce_state(s, MergeSoftmaxState{});  // every lane holds the same (m, l) bits
  const float shift = softmax_shift(s.m);
  const float inv_l = softmax_inv_l(s.l);
  if (vector_path) {
    const int nv = cols / N;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      if (lane + k * kWarpThreads < nv) {
        Vec16<T> o;
#pragma unroll
        for (int e = 0; e < N; ++e) o.v[e] = softmax_normalize<T>(c[k * N + e], shift, inv_l);
        store_16B_aligned(yr + (lane + k * kWarpThreads) * N, o);
      }
    }
  } else {
#pragma unroll
    for (int e = 0; e < K; ++e) {
      const int j = lane + e * kWarpThreads;
      if (j < cols) yr[j] = softmax_normalize<T>(c[e], shift, inv_l);
    }
  }
}

// Body of a kernel with one row per block, any length: thread t folds every BLOCK-th vector online
// (fold_row_softmax_state, one read), BlockAllReduceState merges the BLOCK states (one
// __syncthreads; every thread gets the same bits), then write_row_softmax rereads the same vectors
// (from L2 while the row stayed there) and writes y: two reads and one write of the row.
// Launch: blockDim.x == BLOCK (a power of two in [32, 1024]), gridDim.x == rows.
template <int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void row_softmax_block_reread(const T* __restrict__ x,  // rows x cols
                                                         T* __restrict__ y,        // rows x cols
                                                         int cols) {
  using Reduce = BlockAllReduceState<BLOCK, SoftmaxState>;
  __shared__ typename Reduce::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const int t = static_cast<int>(threadIdx.x);
  const T* xr = x + static_cast<size_t>(row) * static_cast<size_t>(cols);
  T* yr = y + static_cast<size_t>(row) * static_cast<size_t>(cols);
  const bool vector_path = rows_are_vector_aligned(x, y, cols);
  SoftmaxState s = fold_row_softmax_state<BLOCK, UNROLL>(xr, cols, t, vector_path);
  s = Reduce(temp).all_reduce(s, MergeSoftmaxState{});
  write_row_softmax<BLOCK, UNROLL>(xr, yr, cols, t, vector_path, softmax_shift(s.m), softmax_inv_l(s.l));
}

}  // namespace epl
