// epl/row/softmax.cuh — the softmax of the rows of a row-major [rows, cols] matrix, y = exp(x - m) / l.
//
// Record:  catalog/realizations/softmax/online-block-reread.yaml
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

#include "../thread/store.cuh"
#include "ops.cuh"  // softmax_inv_l
#include "softmax_state.cuh"

namespace epl {

// One output element: exp(x - shift) / l, as T (round to nearest even).
template <typename T>
__device__ __forceinline__ T softmax_normalize(float x, float shift, float inv_l) {
  return from_float<T>(__expf(x - shift) * inv_l);
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
