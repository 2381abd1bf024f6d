"""Patch a tree copy's epl/row/softmax_state.cuh: SoftmaxStateVisitor folds a full round in
sub-chunks of at most SUB floats (argument 2) instead of one chunk of UNROLL * 16 / sizeof(T), so
a bf16 round of 8 vectors (64 elements, 128 bytes in flight a thread) does not hold 64 widened
floats at once. Each sub-chunk pays its own max tree and one rescale exponential."""
import pathlib
import sys

p = pathlib.Path(sys.argv[1]) / "kernels/include/epl/row/softmax_state.cuh"
sub = int(sys.argv[2])
s = p.read_text()
old = """  template <typename T, int U>
  __device__ __forceinline__ void round(const Vec16<T> (&v)[U]) {
    float c[U * Vec16<T>::N];
    widen_round(v, c);
    chunk(c);
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
};"""
new = """  template <typename T, int U>
  __device__ __forceinline__ void round(const Vec16<T> (&v)[U]) {
    constexpr int N = Vec16<T>::N;
    constexpr int S = U * N > SUB ? (SUB / N > 0 ? SUB / N : 1) : U;
    static_assert(U % S == 0, "sub-chunks must tile the round");
#pragma unroll
    for (int b = 0; b < U; b += S) {
      float c[S * N];
#pragma unroll
      for (int u = 0; u < S; ++u) {
#pragma unroll
        for (int k = 0; k < N; ++k) c[u * N + k] = to_float(v[b + u].v[k]);
      }
      chunk(c);
    }
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
};"""
assert old in s
s = s.replace(old, new, 1).replace("struct SoftmaxStateVisitor {", f"struct SoftmaxStateVisitor {{\n  static constexpr int SUB = {sub};", 1)
p.write_text(s)
