"""Patch a tree copy of catalog/ and kernels/ with one or more of three changes to the streamed
online (m, l) fold (exploratory; the committed headers are untouched):
  flush     epl/thread/softmax_state.cuh: the state's four exponentials through exp_flush
            (epl/thread/exp.cuh) instead of __expf;
  prefetch  epl/row/visit.cuh: the full-round loop issues the next round's UNROLL loads before
            it visits the current round, so a thread has loads in flight while it computes;
  hmax2     epl/row/softmax_state.cuh: a bf16 round's chunk max taken on the packed pairs
            (max.bf16x2, exact) before they are widened, half the max instructions.
Usage: python3 patch.py TREE flush [prefetch] [hmax2]"""
import pathlib
import sys


def sub(path: pathlib.Path, old: str, new: str, count: int = 1) -> None:
    """Replace the first occurrence of old, which must occur exactly count times."""
    s = path.read_text()
    assert s.count(old) == count, (path, old)
    path.write_text(s.replace(old, new, 1))


root = pathlib.Path(sys.argv[1]) / "kernels/include/epl"
changes = set(sys.argv[2:])
assert changes <= {"flush", "prefetch", "hmax2"}, changes

if "flush" in changes:
    p = root / "thread/softmax_state.cuh"
    sub(p, "#pragma once\n", '#pragma once\n\n#include "exp.cuh"\n')
    for old in ("__expf(a.m - shift)", "__expf(b.m - shift)", "__expf(v[i] - shift)", "__expf(s.m - shift)"):
        sub(p, old, old.replace("__expf", "exp_flush"))

if "prefetch" in changes:
    sub(root / "row/visit.cuh", """    for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(seg + (i + u * LANES) * N);
      visitor.round(v);
    }
""", """    if (i + (UNROLL - 1) * LANES < nv) {  // full rounds, the next one's loads out before this one is visited
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(seg + (i + u * LANES) * N);
      for (;;) {
        const int next = i + UNROLL * LANES;
        const bool more = next + (UNROLL - 1) * LANES < nv;
        Vec16<T> w[UNROLL];
        if (more) {
#pragma unroll
          for (int u = 0; u < UNROLL; ++u) w[u] = load_16B_aligned_hinted<HINT>(seg + (next + u * LANES) * N);
        }
        visitor.round(v);
        i = next;
        if (!more) break;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = w[u];
      }
    }
""")

if "hmax2" in changes:
    sub(root / "row/softmax_state.cuh", """  template <typename T>
  __device__ __forceinline__ void vec(const Vec16<T>& v) {
    const Vec16<T> one[1] = {v};
    round(one);
  }
  __device__ __forceinline__ void scalar(float x) {
    const float c[1] = {x};
    chunk(c);
  }
""", """  template <int U>  // a bf16 round: the chunk max on the packed pairs (max.bf16x2, exact)
  __device__ __forceinline__ void round(const Vec16<__nv_bfloat16> (&v)[U]) {
    __nv_bfloat162 t[U * 4];
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int k = 0; k < 4; ++k) t[u * 4 + k] = reinterpret_cast<const __nv_bfloat162*>(v[u].v)[k];
    }
#pragma unroll
    for (int w = U * 2; w > 0; w /= 2) {
#pragma unroll
      for (int i = 0; i < U * 2; ++i) {
        if (i < w) t[i] = __hmax2(t[i], t[i + w]);
      }
    }
    float c[U * 8];
    widen_round(v, c);
    const float m = fmaxf(s.m, fmaxf(__low2float(t[0]), __high2float(t[0])));
    const float shift = softmax_shift(m);
    s = SoftmaxState{m, s.l * exp_flush(s.m - shift) + softmax_exp_sum_chunk(c, shift)};
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
""")
