// epl/body/resident_pipelined.cuh — register-resident rows streamed through a persistent grid: a
// group's next row is in flight while it computes the current one.
//
// Records: the pipelined-registers and pipelined-cluster realizations under
//          catalog/realizations/{softmax,log-softmax,rmsnorm,layernorm}/.
//
// rows_in_registers (resident.cuh) gives each group one row (or a batch, loaded together) and
// ends: between a row's load and its store sit the operator's all-reduces and exponentials, a
// dependent chain during which the group has nothing in flight. Here the grid is one wave of G
// groups; group g takes rows g, g + G, ... and fetches row r + G (packed, into a second set of
// registers) before it widens and computes row r. The fetch cannot be sunk below the compute that
// precedes its use (unlike a batch loaded at once, whose later rows' loads ptxas placed after the
// first row's arithmetic), so each group keeps one row of loads in flight through every row's
// compute. The share, the operators and the stores are resident.cuh's and ops.cuh's, unchanged.
// With RowCluster groups a cluster is the group: each block prefetches its slice of the cluster's
// next row, for rows too long for one block (64 Ki columns: a 64 KiB slice per block of 4).
#pragma once

#include "../cluster/row_cluster.cuh"
#include "../target.cuh"
#include "resident.cuh"

namespace epl {

// Rows the whole grid holds at once, the persistent grid's stride: one per RowLanes group, one per
// cluster of RowCluster blocks. (Here rather than on the groups: group.cuh is in every row kernel.)
template <typename Group>
struct GridRows {
  __device__ __forceinline__ static int of_grid() { return static_cast<int>(gridDim.x) * Group::ROWS_PER_BLOCK; }
};
#if defined(EPL_HAS_CLUSTERS)
template <int CLUSTER, int BLOCK>
struct GridRows<RowCluster<CLUSTER, BLOCK>> {
  __device__ __forceinline__ static int of_grid() { return static_cast<int>(gridDim.x) / CLUSTER; }
};
#endif

template <RowPath ON, typename Group, int ITEMS, typename T, typename Op>
__device__ __forceinline__ void rows_pipelined_on(Group& group, Op op, const T* __restrict__ x,
                                                  const T* __restrict__ p0, const T* __restrict__ p1,
                                                  T* __restrict__ y, int rows, int cols) {
  static_assert(ITEMS % Vec16<T>::N == 0, "ITEMS must be whole 16-byte vectors of T");
  constexpr int VECS = ITEMS / Vec16<T>::N;
  constexpr bool VECTOR = ON != kScalarPath;
  const RowSegment seg = group.template segment<T>(cols);
  RowShare<Group::LANES, VECS, T, VECTOR, ON == kSplitPath> share;
  share.lane = group.lane();
  // Row slots: this group's first row and the grid's stride; every thread of a block runs the same
  // number of iterations (multi-warp groups all-reduce with barriers), rows past the end as empty.
  const int stride = GridRows<Group>::of_grid();
  const int iters = ceil_div(rows, stride);
  int row = group.row();
  auto row_base = [&](int r) { return static_cast<size_t>(r < rows ? r : 0) * static_cast<size_t>(cols) + seg.begin; };
  auto row_start = [&](int r) { return x + static_cast<size_t>(r < rows ? r : 0) * static_cast<size_t>(cols); };
  Vec16<T> next[VECS];  // vector path only: the scalar path loads each row at its turn
  T next_head{};        // the next row's first element, where the Op pivots on it (ReadsRowHead)
  if constexpr (VECTOR) {
    share.n = row < rows ? seg.n : 0;
    share.fetch(x + row_base(row), next);
    next_head = row_head_of<Op>(row_start(row));
  }
  for (int it = 0; it < iters; ++it, row += stride) {
    Vec16<T> raw[VECS];
    T head{};
    if constexpr (VECTOR) {
#pragma unroll
      for (int k = 0; k < VECS; ++k) raw[k] = next[k];
      head = next_head;
      if (it + 1 < iters) {
        share.n = row + stride < rows ? seg.n : 0;
        share.fetch(x + row_base(row + stride), next);
        next_head = row_head_of<Op>(row_start(row + stride));
      }
    }
    const bool has_row = row < rows;
    share.n = has_row ? seg.n : 0;
    if constexpr (VECTOR) {
      share.widen(raw, x + row_base(row));
      share.head = to_float(head);
    } else {
      share.load_scalar(x + row_base(row));
      share.head = to_float(row_head_of<Op>(row_start(row)));
    }
    const auto constants = op.stats(share, group, cols);  // every thread: all-reduces need them all
    if (has_row) {
      share.template store<Op::kParams>(y + row_base(row), p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1,
                                        [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
    }
  }
}

// The body of a row-in, row-out operator kernel over a persistent grid (same Op, Group and ITEMS
// contract as rows_in_registers). Launch: blockDim.x == the Group's BLOCK and one resident wave:
// RowLanes, gridDim.x <= ceil_div(rows, Group::ROWS_PER_BLOCK); RowCluster, gridDim.x a multiple of
// CLUSTER with at most rows clusters, no more than the device holds at once (a cluster that waits
// for a free GPC would run its rows after everyone else's).
template <typename Group, int ITEMS, typename T, typename Op>
__device__ __forceinline__ void rows_in_registers_pipelined(Op op, const T* __restrict__ x, const T* __restrict__ p0,
                                                            const T* __restrict__ p1, T* __restrict__ y, int rows,
                                                            int cols) {
  __shared__ typename Group::TempStorage temp;
  Group group(temp);
  if (row_arrays_vector_aligned(x, y, p0, p1, cols)) {
    rows_pipelined_on<kVectorPath, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  } else {
    rows_pipelined_on<kScalarPath, Group, ITEMS>(group, op, x, p0, p1, y, rows, cols);
  }
}

}  // namespace epl
