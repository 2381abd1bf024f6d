// epl/row/resident.cuh — row operators whose row stays in registers from its load to its store.
//
// Records: the register realizations under catalog/realizations/{softmax,log-softmax,rmsnorm,
//          layernorm}/ (a row in, a row out: one read and one write of every element).
//
// RowShare<LANES, VECS, T, VECTOR> is one thread's share of a row segment: VECS 16-byte vectors
// widened to float32 at the load (K = VECS * 16 / sizeof(T) registers), the vectors lane,
// lane + LANES, ... of the segment on the vector path, or elements lane, lane + LANES, ... on the
// scalar path (rows or
// parameter arrays not 16-byte aligned). A segment holds at most LANES * VECS * 16 / sizeof(T)
// elements: that capacity is the realization's domain (its record's launch.domain).
//
// rows_in_registers<Group, ITEMS>(op, ...) is the whole body of such a kernel: load the share (all
// loads issued before the first is used), op.stats(...) computes the row's constants with as many
// all-reduces over the row's group as the operator needs (epl/row/group.cuh), then every element
// is rewritten from registers through op.apply(x, row constants, p0[col], p1[col]) and stored in
// 16-byte vectors. The operators (the `op`) are in epl/row/ops.cuh.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load_evict.cuh"
#include "../thread/ops.cuh"
#include "../thread/store.cuh"
#include "../thread/widen.cuh"
#include "../util.cuh"
#include "group.cuh"
#include "rewrite.cuh"

namespace epl {

// a[0] = op over a[0, 2 * W), pairwise (one template level per tree level, so it fully unrolls).
template <int W, int K, typename Op>
__device__ __forceinline__ void tree_in_place(float (&a)[K], Op op) {
  if constexpr (W > 0) {
#pragma unroll
    for (int i = 0; i < W; ++i) a[i] = op(a[i], a[i + W]);
    tree_in_place<W / 2>(a, op);
  }
}

template <int LANES, int VECS, typename T, bool VECTOR>
struct RowShare {
  static_assert(is_pow2(VECS), "VECS must be a power of two (pairwise trees)");
  static constexpr int N = Vec16<T>::N;     // elements per 16-byte vector
  static constexpr int K = VECS * N;        // elements per thread
  static constexpr int CAPACITY = LANES * K;  // elements per segment

  float x[K];  // the share widened to float32 once, at the load (exact); rewritable in place
  int lane;    // 0 .. LANES-1
  int n;       // segment length (0: this thread's group has no row)

  // The segment column of element e of slot k: vectors lane, lane + LANES, ... (VECTOR), or
  // elements lane, lane + LANES, ... (scalar path).
  __device__ __forceinline__ int col(int k, int e) const {
    return VECTOR ? (lane + k * LANES) * N + e : lane + (k * N + e) * LANES;
  }
  // On the vector path a whole vector is in range or not (n is a multiple of N there): one test
  // per vector, never per element.
  __device__ __forceinline__ bool valid(int k, int e) const { return VECTOR ? col(k, 0) < n : col(k, e) < n; }

  // Vector path: issues every load of the segment at seg into raw (packed T, nothing widened yet):
  // VECS * 16 bytes in flight per thread. A slot past the end loads the segment's first vector
  // instead (in bounds: a row holds at least one vector; a thread without a row reads row 0's), so
  // every load is unconditional; those slots are never used as data (reduce, count and store test
  // valid()). A zero default instead made ptxas zero each destination and predicate each load and
  // each bf16 unpack: three instructions per bf16 element where a shift or a mask is one. The loads
  // ask L2 to keep x (evict_last), so that y's lines leave first (thread/cache_policy.cuh).
  __device__ __forceinline__ void fetch(const T* __restrict__ seg, Vec16<T> (&raw)[VECS]) const {
    static_assert(VECTOR, "fetch is the vector path's; the scalar path loads with load_scalar");
#pragma unroll
    for (int k = 0; k < VECS; ++k) raw[k] = load_16B_aligned_hinted<Evict::kEvictLast>(seg + (valid(k, 0) ? col(k, 0) : 0));
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

  // The fetched values widened to float32 (exact).
  __device__ __forceinline__ void widen(const Vec16<T> (&raw)[VECS]) {
#pragma unroll
    for (int k = 0; k < VECS; ++k) widen_vec16(raw[k], x + k * N);
  }

  // Rewrites every value in place, x = f(x) (an operator's intermediate, e.g. exp(x - m), kept
  // for the store instead of recomputed there).
  template <typename F>
  __device__ __forceinline__ void transform(F f) {
#pragma unroll
    for (int i = 0; i < K; ++i) x[i] = f(x[i]);
  }

  // op over f(x) for the values in range (Op::identity() elsewhere): a pairwise tree within each
  // vector, then across the VECS vectors (N + VECS temporaries).
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
    return part[0];
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
    return c;
  }

  // out[col] = round_to_T(f(x, p0[col], p1[col])) for every element in range; P (0, 1 or 2) is how
  // many parameter arrays f reads (absent ones read as 0 and are never dereferenced).
  template <int P, typename F>
  __device__ __forceinline__ void store(T* __restrict__ out, const T* __restrict__ p0, const T* __restrict__ p1,
                                        F f) const {
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      if constexpr (VECTOR) {
        if (!valid(k, 0)) continue;
        const int c0 = col(k, 0);
        store_16B_aligned(out + c0, apply_vec16<P>(x + k * N, p0, p1, c0, f));
      } else {
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

// Every array a row operator touches can take 16-byte vectors at the segment offsets.
template <typename T>
__device__ __forceinline__ bool row_arrays_vector_aligned(const T* x, const T* y, const T* p0, const T* p1,
                                                          int cols) {
  return cols % Vec16<T>::N == 0 && is_16B_aligned(x) && is_16B_aligned(y) && is_16B_aligned(p0) &&
         is_16B_aligned(p1);
}

// One load path of rows_in_registers, chosen once per launch (uniform over the grid): each path is
// straight-line code with no per-element test of which path it is on. The group owns BATCH rows:
// every load of all BATCH rows is issued first (packed, BATCH * ITEMS * sizeof(T) bytes in flight
// per thread), then the rows are computed one after the other, each widened only when its turn
// comes. A batch multiplies the bytes in flight per register: a widened row costs a register per
// element, a packed bfloat16 row half of one.
template <bool VECTOR, int BATCH, typename Group, int ITEMS, typename T, typename Op>
__device__ __forceinline__ void rows_in_registers_on(Group& group, Op op, const T* __restrict__ x,
                                                     const T* __restrict__ p0, const T* __restrict__ p1,
                                                     T* __restrict__ y, int rows, int cols) {
  static_assert(ITEMS % Vec16<T>::N == 0, "ITEMS must be whole 16-byte vectors of T");
  constexpr int VECS = ITEMS / Vec16<T>::N;
  const RowSegment seg = group.template segment<T>(cols);
  RowShare<Group::LANES, VECS, T, VECTOR> share;
  share.lane = group.lane();
  auto row_base = [&](int row) {
    return static_cast<size_t>(row < rows ? row : 0) * static_cast<size_t>(cols) + seg.begin;
  };
  Vec16<T> raw[BATCH][VECS];  // vector path only
  if constexpr (VECTOR) {
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int row = group.row(b, BATCH);
      share.n = row < rows ? seg.n : 0;
      share.fetch(x + row_base(row), raw[b]);
    }
  }
#pragma unroll
  for (int b = 0; b < BATCH; ++b) {
    const int row = group.row(b, BATCH);
    const bool has_row = row < rows;
    share.n = has_row ? seg.n : 0;
    if constexpr (VECTOR) {
      share.widen(raw[b]);
    } else {
      share.load_scalar(x + row_base(row));
    }
    const auto constants = op.stats(share, group, cols);  // every thread: all-reduces need them all;
                                                          // it may rewrite the share in place
    if (has_row) {
      const size_t base = static_cast<size_t>(row) * static_cast<size_t>(cols) + seg.begin;
      share.template store<Op::kParams>(y + base, p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1,
                                        [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
    }
  }
}

// Threads per block of a register-resident RowLanes mapping: G, or MIN_BLOCK when a row takes fewer
// (whole rows per block). 256 keeps 8 to 32 short rows per block; 64 lets an SM refill two warps at
// a time instead of waiting for the slowest of eight, at the price of more blocks (a launch
// parameter: experiment 0002-row-block-grain measured 0.8-3.1% at 256 and 1 Ki columns).
__host__ __device__ constexpr int row_block_threads(int g, int min_block) { return g > min_block ? g : min_block; }

// The body of a row-in, row-out operator kernel with the row held in registers.
// Group: RowLanes<BLOCK, G> or RowCluster<CLUSTER, BLOCK> (epl/row/group.cuh).
// Op: `static constexpr int kParams` (per-column parameter arrays: 0, 1 or 2),
//     `Row stats(const Share&, Group&, int cols)` (all threads call it: it may all-reduce),
//     `float apply(float x, const Row&, float p0, float p1)`.
// ITEMS: elements per thread (whole 16-byte vectors of T: 4 float32, 8 bfloat16).
// x, y: rows x cols, row-major; p0, p1: cols each (or null).
// Domain: the segment of a group (cols, or cols / CLUSTER rounded up to whole vectors) must be at
// most Group::LANES * ITEMS elements; longer rows are not this body's (the launch plan's domain
// keeps them away); rows < 2^31, cols < 2^31.
// BATCH: rows per group (1 for RowCluster): ceil_div(rows, BATCH * Group::ROWS_PER_BLOCK) blocks.
// Which load paths a kernel compiles. kAnyPath tests the arrays at run time and compiles both, so
// the kernel gets the hungrier path's register count (the scalar one: 76-96 registers at 32 items
// where the vector path alone needs 54-58). kVectorPath and kScalarPath compile one each, for a
// launch plan that names an entry per alignment (launch.steps[].unaligned_entry): the vector entry
// may assume row_arrays_vector_aligned.
enum RowPath { kAnyPath, kVectorPath, kScalarPath };

template <typename Group, int ITEMS, typename T, int BATCH = 1, RowPath PATH = kAnyPath, typename Op>
__device__ __forceinline__ void rows_in_registers(Op op, const T* __restrict__ x, const T* __restrict__ p0,
                                                  const T* __restrict__ p1, T* __restrict__ y, int rows, int cols) {
  __shared__ typename Group::TempStorage temp;
  Group group(temp);
  if constexpr (PATH == kVectorPath) {
    rows_in_registers_on<true, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  } else if constexpr (PATH == kScalarPath) {
    rows_in_registers_on<false, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  } else if (row_arrays_vector_aligned(x, y, p0, p1, cols)) {
    rows_in_registers_on<true, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  } else {
    rows_in_registers_on<false, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  }
}

}  // namespace epl
