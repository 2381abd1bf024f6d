// epl/body/resident.cuh — row operators whose row stays in registers from its load to its store.
//
// Records: the register realizations under catalog/realizations/{softmax,log-softmax,rmsnorm,
//          layernorm}/ (a row in, a row out: one read and one write of every element).
//
// RowShare<LANES, VECS, T, VECTOR> is one thread's share of a row segment: VECS 16-byte vectors
// widened to float32 at the load (K = VECS * 16 / sizeof(T) registers), the vectors lane,
// lane + LANES, ... of the segment on the vector path (of its 16-byte aligned body on the split
// path, the head and tail elements beside them: group/walk.cuh), or elements lane, lane + LANES, ...
// on the scalar path (rows or arrays that allow neither). A segment holds at most LANES * VECS * 16 / sizeof(T)
// elements: that capacity is the realization's domain (its record's launch.domain).
//
// rows_in_registers<Group, ITEMS>(op, ...) is the whole body of such a kernel: load the share (all
// loads issued before the first is used), op.stats(...) computes the row's constants with as many
// all-reduces over the row's group as the operator needs (epl/group/lanes.cuh), then every element
// is rewritten from registers through op.apply(x, row constants, p0[col], p1[col]) and stored in
// 16-byte vectors. The operators (the `op`) are in epl/policy/ops.cuh.
#pragma once

#include "../group/lanes.cuh"
#include "../group/share.cuh"
#include "../thread/load.cuh"
#include "../util.cuh"

namespace epl {

// One load path of rows_in_registers, chosen once per launch (uniform over the grid): each path is
// straight-line code with no per-element test of which path it is on. The group owns BATCH rows:
// every load of all BATCH rows is issued first (packed, BATCH * ITEMS * sizeof(T) bytes in flight
// per thread), then the rows are computed one after the other, each widened only when its turn
// comes. A batch multiplies the bytes in flight per register: a widened row costs a register per
// element, a packed bfloat16 row half of one.
template <RowPath ON, int BATCH, typename Group, int ITEMS, typename T, typename Op>
__device__ __forceinline__ void rows_in_registers_on(Group& group, Op op, const T* __restrict__ x,
                                                     const T* __restrict__ p0, const T* __restrict__ p1,
                                                     T* __restrict__ y, int rows, int cols) {
  static_assert(ITEMS % Vec16<T>::N == 0, "ITEMS must be whole 16-byte vectors of T");
  constexpr int VECS = ITEMS / Vec16<T>::N;
  constexpr bool VECTOR = ON != kScalarPath;
  const RowSegment seg = group.template segment<T>(cols);
  RowShare<Group::LANES, VECS, T, VECTOR, ON == kSplitPath> share;
  share.lane = group.lane();
  auto row_base = [&](int row) {
    return static_cast<size_t>(row < rows ? row : 0) * static_cast<size_t>(cols) + seg.begin;
  };
  auto row_start = [&](int row) { return x + static_cast<size_t>(row < rows ? row : 0) * static_cast<size_t>(cols); };
  Vec16<T> raw[BATCH][VECS];  // vector path only
  T heads[BATCH];             // each row's first element, where the Op pivots on it (ReadsRowHead)
  if constexpr (VECTOR) {
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int row = group.row(b, BATCH);
      share.n = row < rows ? seg.n : 0;
      share.fetch(x + row_base(row), raw[b]);
      heads[b] = row_head_of<Op>(row_start(row));
    }
  }
#pragma unroll
  for (int b = 0; b < BATCH; ++b) {
    const int row = group.row(b, BATCH);
    const bool has_row = row < rows;
    share.n = has_row ? seg.n : 0;
    if constexpr (VECTOR) {
      share.widen(raw[b], x + row_base(row));
      share.head = to_float(heads[b]);
    } else {
      share.load_scalar(x + row_base(row));
      share.head = to_float(row_head_of<Op>(row_start(row)));
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

// The body of a row-in, row-out operator kernel with the row held in registers.
// Group: RowLanes<BLOCK, G> or RowCluster<CLUSTER, BLOCK> (epl/group/lanes.cuh).
// Op: `static constexpr int kParams` (per-column parameter arrays: 0, 1 or 2),
//     `Row stats(const Share&, Group&, int cols)` (all threads call it: it may all-reduce),
//     `float apply(float x, const Row&, float p0, float p1)`.
// ITEMS: elements per thread (whole 16-byte vectors of T: 4 float32, 8 bfloat16).
// x, y: rows x cols, row-major; p0, p1: cols each (or null).
// Domain: the segment of a group (cols, or cols / CLUSTER rounded up to whole vectors) must be at
// most Group::LANES * ITEMS elements; longer rows are not this body's (the launch plan's domain
// keeps them away); rows < 2^31, cols < 2^31.
// BATCH: rows per group (1 for RowCluster): ceil_div(rows, BATCH * Group::ROWS_PER_BLOCK) blocks.
template <typename Group, int ITEMS, typename T, int BATCH = 1, RowPath PATH = kAnyPath, typename Op>
__device__ __forceinline__ void rows_in_registers(Op op, const T* __restrict__ x, const T* __restrict__ p0,
                                                  const T* __restrict__ p1, T* __restrict__ y, int rows, int cols) {
  __shared__ typename Group::TempStorage temp;
  Group group(temp);
  if constexpr (PATH != kAnyPath) {
    rows_in_registers_on<PATH, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  } else if (row_arrays_vector_aligned(x, y, p0, p1, cols)) {
    rows_in_registers_on<kVectorPath, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  } else {
    rows_in_registers_on<kScalarPath, BATCH, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  }
}

}  // namespace epl
