// epl/group/share.cuh — one thread's share of a row segment held in registers, and which load path
// the arrays of a row operator can take.
//
// RowShare<LANES, VECS, T, VECTOR>: VECS 16-byte vectors widened to float32 at the load
// (K = VECS * 16 / sizeof(T) registers), the vectors lane, lane + LANES, ... of the segment's
// vector path (with SPLIT, of the segment's aligned body, the segment split by address as
// group/walk.cuh says: this lane's head and tail elements are held beside them, widened too), or
// elements lane, lane + LANES, ... on the scalar path (rows or arrays that allow neither). A segment holds at most LANES * VECS * 16 / sizeof(T) elements: that capacity
// is the domain of a realization built on it (its record's launch.domain). The body that loads,
// reduces and stores shares is epl/body/resident.cuh.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load_evict.cuh"
#include "../thread/ops.cuh"
#include "../thread/store.cuh"
#include "../thread/tree.cuh"
#include "../thread/widen.cuh"
#include "../util.cuh"
#include "rewrite.cuh"
#include "walk.cuh"

namespace epl {

// Which load paths a kernel compiles. kAnyPath tests the arrays at run time and compiles both the
// 16-byte and the scalar path, so the kernel gets the hungrier path's register count (the scalar
// one: 76-96 registers at 32 items where the vector path alone needs 54-58). kVectorPath,
// kSplitPath and kScalarPath compile one each, for a launch plan that names an entry per alignment
// (launch.steps[]: entry, split_entry, unaligned_entry): the vector entry may assume
// row_arrays_vector_aligned (every array 16-byte aligned, cols whole vectors), the split one
// row_arrays_split_aligned (x and y at one offset mod 16, any cols: each segment split by address,
// group/walk.cuh, which costs registers the aligned entry need not spend), the scalar one nothing.
enum RowPath { kAnyPath, kVectorPath, kScalarPath, kSplitPath };

// A row policy that pivots on its row's first element (layernorm's statistics: the moments of
// x - row[0], so that a constant row has every shifted value exactly 0, mean = row[0] and variance
// 0 exactly) says so with `static constexpr bool kReadsRowHead = true`. The bodies then fetch the
// head once per row: the register bodies into RowShare::head (every thread of the group loads the
// same address, one transaction a warp, issued with the row's own loads), the staged pipelined one
// by a 16-byte bulk copy beside the row's slice (epl/body/staged_pipelined.cuh); the streamed
// policies read it as row[0].
template <typename Op, typename = void>
struct ReadsRowHead {
  static constexpr bool value = false;
};
template <typename Op>
struct ReadsRowHead<Op, decltype(void(Op::kReadsRowHead))> {
  static constexpr bool value = Op::kReadsRowHead;
};

// The first element of the row starting at `row` for an Op that pivots on it (ReadsRowHead), else
// nothing is loaded (and the value is never used).
template <typename Op, typename T>
__device__ __forceinline__ T row_head_of(const T* __restrict__ row) {
  if constexpr (ReadsRowHead<Op>::value) {
    return row[0];
  } else {
    return from_float<T>(0.0f);
  }
}

// Sixteen bytes the split path's dummy loads read (RowShare::fetch): written when the module
// loads, so a dummy load never reads bytes the program did not write (the chunk holding a short
// row's first element may hold bytes before the row or past the array's end: initcheck reports
// such a read, though its value is never used).
__device__ __align__(16) const unsigned int kSplitDummyChunk[4] = {0u, 0u, 0u, 0u};

template <int LANES, int VECS, typename T, bool VECTOR, bool SPLIT = false>
struct RowShare {
  static_assert(VECTOR || !SPLIT, "the split is the vector path's");
  static_assert(is_pow2(VECS), "VECS must be a power of two (pairwise trees)");
  static constexpr int N = Vec16<T>::N;     // elements per 16-byte vector
  static constexpr int K = VECS * N;        // elements per thread
  static constexpr int CAPACITY = LANES * K;  // elements per segment

  using Edges = RowEdges<LANES, T>;
  static constexpr int EDGES = SPLIT ? 2 * Edges::kSlots : 0;  // head and tail elements per thread

  float x[K];  // the share widened to float32 once, at the load (exact); rewritable in place
  float ex[EDGES > 0 ? EDGES : 1];  // SPLIT: this lane's head and tail elements, widened
  int lane;    // 0 .. LANES-1
  int n;       // segment length (0: this thread's group has no row)
  RowSplit sp{0, 0, 0, 0};  // SPLIT: the segment's split (widen sets it)
  float head = 0.0f;  // the whole row's first element, for an Op that pivots on it (ReadsRowHead)

  // The segment column of element e of slot k: vectors lane, lane + LANES, ... (VECTOR; of the
  // body from sp.head with SPLIT), or elements lane, lane + LANES, ... (scalar path).
  __device__ __forceinline__ int col(int k, int e) const {
    return VECTOR ? (SPLIT ? sp.head : 0) + (lane + k * LANES) * N + e : lane + (k * N + e) * LANES;
  }
  // On the vector path a whole vector is in range or not (n is a multiple of N there without SPLIT):
  // one test per vector, never per element.
  __device__ __forceinline__ bool valid(int k, int e) const {
    return VECTOR ? (SPLIT ? lane + k * LANES < sp.nv : col(k, 0) < n) : col(k, e) < n;
  }
  __device__ __forceinline__ bool edge_valid(int s) const { return Edges::valid(sp, lane, s); }

  // Vector path: issues every load of the segment seg[0, n) (of its body, SPLIT) into raw (packed
  // T, nothing widened yet): VECS * 16 bytes in flight per thread. A slot past the end loads the
  // first vector instead (in bounds: a row holds at least one vector; a thread without a row reads
  // row 0's), so every load is unconditional; those slots are never used as data (reduce, count
  // and store test valid()). A zero default instead made ptxas zero each destination and predicate
  // each load and each bf16 unpack: three instructions per bf16 element where a shift or a mask is
  // one. The loads ask L2 to keep x (evict_last), so that y's lines leave first
  // (thread/cache_policy.cuh).
  // SPLIT: a segment with no whole vector in its body (shorter than 2 * 16 bytes; a thread without
  // a row, n 0) loads kSplitDummyChunk instead, never used (a branch around the loads cost 6
  // registers at a batch of 4). The head and tail elements are widen's to load: loaded here and
  // held packed through the batch, they cost 16 registers more at a batch of 4 (ptxas, sm_90a).
  __device__ __forceinline__ void fetch(const T* __restrict__ seg, Vec16<T> (&raw)[VECS]) const {
    static_assert(VECTOR, "fetch is the vector path's; the scalar path loads with load_scalar");
    if constexpr (SPLIT) {
      const RowSplit at = split_row_segment(seg, n);
      const T* __restrict__ body =
          at.nv > 0 ? seg + at.head : reinterpret_cast<const T*>(kSplitDummyChunk);
#pragma unroll
      for (int k = 0; k < VECS; ++k) {
        const int i = lane + k * LANES;
        raw[k] = load_16B_aligned_hinted<Evict::kEvictLast>(body + (i < at.nv ? i * N : 0));
      }
    } else {
#pragma unroll
      for (int k = 0; k < VECS; ++k) raw[k] = load_16B_aligned_hinted<Evict::kEvictLast>(seg + (valid(k, 0) ? col(k, 0) : 0));
    }
  }

  // Scalar path (rows or parameter arrays not 16-byte aligned): every in-range element loaded and
  // widened straight into x (0 past the end), with no packed copy beside it. The two paths are one
  // kernel, whose register count is the larger path's: a packed copy here (K registers for K
  // elements, bf16 included) held the vector path's 32-item points at 80-96 registers where their
  // own code needs 54-58.
  __device__ __forceinline__ void load_scalar(const T* __restrict__ seg) {
    static_assert(!VECTOR, "load_scalar is the scalar path's");
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
#pragma unroll
      for (int e = 0; e < N; ++e) x[k * N + e] = valid(k, e) ? to_float(seg[col(k, e)]) : 0.0f;
    }
  }

  // The vectors fetched from seg (with this n) widened to float32 (exact). SPLIT: seg's split
  // becomes the share's, and this lane's head and tail elements of seg are loaded (scalar loads of
  // the lines of the body's first and last vectors, already in flight or in L1).
  __device__ __forceinline__ void widen(const Vec16<T> (&raw)[VECS], const T* __restrict__ seg) {
    if constexpr (SPLIT) sp = split_row_segment(seg, n);
#pragma unroll
    for (int s = 0; s < EDGES; ++s) ex[s] = to_float(seg[edge_valid(s) ? Edges::col(sp, lane, s) : 0]);
#pragma unroll
    for (int k = 0; k < VECS; ++k) widen_vec16(raw[k], x + k * N);
  }

  // Rewrites every value in place, x = f(x) (an operator's intermediate, e.g. exp(x - m), kept
  // for the store instead of recomputed there).
  template <typename F>
  __device__ __forceinline__ void transform(F f) {
#pragma unroll
    for (int i = 0; i < K; ++i) x[i] = f(x[i]);
#pragma unroll
    for (int s = 0; s < EDGES; ++s) ex[s] = f(ex[s]);
  }

  // op over f(x) for the values in range (Op::identity() elsewhere): a pairwise tree within each
  // vector, then across the VECS vectors (N + VECS temporaries), then the head and tail elements
  // in order.
  template <typename F, typename Op>
  __device__ __forceinline__ float reduce(F f, Op op) const {
    float part[VECS];
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      float t[N];
#pragma unroll
      for (int e = 0; e < N; ++e) {
        const float fx = f(x[k * N + e]);
        t[e] = VECTOR || valid(k, e) ? fx : Op::identity();
      }
      tree_in_place<N / 2>(t, op);
      part[k] = !VECTOR || valid(k, 0) ? t[0] : Op::identity();
    }
    tree_in_place<VECS / 2>(part, op);
    float r = part[0];
#pragma unroll
    for (int s = 0; s < EDGES; ++s) {
      if (edge_valid(s)) r = op(r, f(ex[s]));
    }
    return r;
  }

  // How many of the K values are in the segment (a prefix of the slots).
  __device__ __forceinline__ int count() const {
    int c = 0;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      if constexpr (VECTOR) {
        c += valid(k, 0) ? N : 0;
      } else {
#pragma unroll
        for (int e = 0; e < N; ++e) c += valid(k, e) ? 1 : 0;
      }
    }
#pragma unroll
    for (int s = 0; s < EDGES; ++s) c += edge_valid(s) ? 1 : 0;
    return c;
  }

  // out[col] = round_to_T(f(x, p0[col], p1[col])) for every element in range; P (0, 1 or 2) is how
  // many parameter arrays f reads (absent ones read as 0 and are never dereferenced). Vector path:
  // out at the segment's offset mod 16; the parameters as vectors where in phase with the body
  // (params_in_phase, rewrite.cuh), element by element where not.
  template <int P, typename F>
  __device__ __forceinline__ void store(T* __restrict__ out, const T* __restrict__ p0, const T* __restrict__ p1,
                                        F f) const {
    if constexpr (VECTOR) {
      const bool in_phase = !SPLIT || params_in_phase<P>(p0, p1, sp.head);
#pragma unroll
      for (int k = 0; k < VECS; ++k) {
        if (!valid(k, 0)) continue;
        const int c0 = col(k, 0);
        store_16B_aligned(out + c0, apply_vec16<P>(x + k * N, p0, p1, c0, f, in_phase));
      }
#pragma unroll
      for (int s = 0; s < EDGES; ++s) {
        if (edge_valid(s)) rewrite_scalar<P>(ex[s], p0, p1, out, Edges::col(sp, lane, s), f);
      }
    } else {
#pragma unroll
      for (int k = 0; k < VECS; ++k) {
#pragma unroll
        for (int e = 0; e < N; ++e) {
          if (!valid(k, e)) continue;
          const int c = col(k, e);
          const float pa = P >= 1 ? to_float(p0[c]) : 0.0f;
          const float pb = P >= 2 ? to_float(p1[c]) : 0.0f;
          out[c] = from_float<T>(f(x[k * N + e], pa, pb));
        }
      }
    }
  }
};

// Every array a row operator touches can take 16-byte vectors at the segment offsets, with no split
// (what kVectorPath assumes).
template <typename T>
__device__ __forceinline__ bool row_arrays_vector_aligned(const T* x, const T* y, const T* p0, const T* p1,
                                                          int cols) {
  return cols % Vec16<T>::N == 0 && is_16B_aligned(x) && is_16B_aligned(y) && is_16B_aligned(p0) &&
         is_16B_aligned(p1);
}

}  // namespace epl
