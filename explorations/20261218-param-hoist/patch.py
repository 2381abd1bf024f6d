"""Patch a tree copy (not evidence): the rewrite's parameter vectors loaded one round ahead.

rewrite.cuh's rewrite_row_segment loads a round's UNROLL staged (or reread) vectors first, but each
vector's parameter vectors inside its own rewrite, and ptxas issues those at most two vectors
ahead of their store (../20261217-param-reads). Hoisting them to the top of the round in the
source does not survive scheduling: with plain loads, a memory clobber, or volatile asm loads and
stores, the SASS keeps the same interleaved shape. A value loaded in one iteration and used in the
next cannot be sunk past the loop's back edge, so here round k + 1's parameters are loaded during
round k (2 x UNROLL vectors more in registers). Values and their order are unchanged: the outputs
stay exact. Usage: python3 patch.py TREE"""
import pathlib
import sys

p = pathlib.Path(sys.argv[1]) / "kernels/include/epl/row/rewrite.cuh"
s = p.read_text()
old = """#pragma unroll 1
    for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds: all loads first
      Vec16<T> v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(seg + (i + u * LANES) * N);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c0 = (i + u * LANES) * N;
        store_16B_aligned(out + c0, rewrite_vec16<P>(v[u], p0, p1, c0, f));
      }
    }"""
new = """    Vec16<T> a[UNROLL], b[UNROLL];  // this round's parameter vectors, loaded a round ahead
    if (i + (UNROLL - 1) * LANES < nv) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if constexpr (P >= 1) a[u] = load_16B_aligned(p0 + (i + u * LANES) * N);
        if constexpr (P >= 2) b[u] = load_16B_aligned(p1 + (i + u * LANES) * N);
      }
    }
#pragma unroll 1
    for (; i + (UNROLL - 1) * LANES < nv; i += UNROLL * LANES) {  // full rounds: all loads first
      Vec16<T> v[UNROLL], a_next[UNROLL], b_next[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_16B_aligned_hinted<HINT>(seg + (i + u * LANES) * N);
      const int next = i + UNROLL * LANES;
      if (next + (UNROLL - 1) * LANES < nv) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
          if constexpr (P >= 1) a_next[u] = load_16B_aligned(p0 + (next + u * LANES) * N);
          if constexpr (P >= 2) b_next[u] = load_16B_aligned(p1 + (next + u * LANES) * N);
        }
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        float x[N];
        widen_vec16(v[u], x);
        store_16B_aligned(out + (i + u * LANES) * N, apply_vec16<P>(x, a[u], b[u], f));
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        a[u] = a_next[u];
        b[u] = b_next[u];
      }
    }"""
assert s.count(old) == 1
p.write_text(s.replace(old, new))
