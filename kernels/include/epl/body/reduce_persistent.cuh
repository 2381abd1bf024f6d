// epl/body/reduce_persistent.cuh — whole rows reduced by a persistent grid of blocks, the next
// tile's loads always in flight, across row boundaries.
//
// Record: catalog/realizations/segmented-row-reduce/persistent-rows.yaml
//
// One block per row (reduce_block.cuh) keeps loads in flight only while a block is young: it
// issues its row's loads, waits, reduces (a barrier), exits, and the SM slot's next block starts
// from nothing. Here a grid of G resident blocks deals rows round robin (block b takes rows b,
// b + G, ...). A block walks its rows as a sequence of tiles of BLOCK * UNROLL 16-byte vectors and
// issues tile s + 1's loads before folding tile s, so the loads of a row's first tile are in
// flight while the previous row is reduced. Rows whose starts are not 16-byte aligned take the
// one-block-per-row fold in a grid-stride loop (scalar loads, no pipelining).
//
// Order of operations: a thread folds its vectors of a row in index order (each vector as a
// pairwise tree), then the block reduction of reduce_warp_shuffle.cuh: the same order as
// block-per-row at the same BLOCK and UNROLL, so the two agree bit for bit on the vector path.
#pragma once

#include "../block/reduce_warp_shuffle.cuh"
#include "../group/fold.cuh"
#include "../util.cuh"
#include "reduce_block.cuh"

namespace epl {

// One tile of a thread's share of a row: UNROLL vectors, vector u at index base + u * BLOCK.
template <int BLOCK, int UNROLL, typename T>
struct RowTile {
  Vec16<T> v[UNROLL];

  // Loads the vectors of the tile starting at vector `base` of `row` that lie below nv.
  __device__ __forceinline__ void load(const T* __restrict__ row, int base, int nv) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int i = base + u * BLOCK;
      if (i < nv) v[u] = load_16B_aligned(row + static_cast<size_t>(i) * Vec16<T>::N);
    }
  }

  template <typename Op>
  __device__ __forceinline__ float fold(float acc, int base, int nv, Op op) const {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (base + u * BLOCK < nv) acc = op(acc, fold_vec16(v[u], op));
    }
    return acc;
  }
};

// The body of a row-reduce kernel with a persistent grid: block b reduces rows b, b + gridDim.x,
// ... and thread 0 writes out[row].
// Launch: blockDim.x == BLOCK, 1 <= gridDim.x <= rows (a grid that divides rows evenly keeps
// every block's share equal). Traffic: rows * cols * sizeof(T) read once, 4 bytes per row written.
// Barriers: one per row (two TempStorage slots, alternating by row, make the reuse barrier
// unnecessary: a warp writes a slot again only after the next row's barrier, which warp 0 reaches
// after reading it).
template <int BLOCK, int UNROLL, typename T, typename Op>
__device__ __forceinline__ void row_reduce_persistent(const T* __restrict__ x, float* __restrict__ out, int rows,
                                                      int cols) {
  using BlockReduce = BlockReduceWarpShuffle<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp[2];
  const int t = static_cast<int>(threadIdx.x);
  const int grid = static_cast<int>(gridDim.x);
  int row = static_cast<int>(blockIdx.x);
  if (row >= rows) return;  // only when the grid exceeds the rows (block-uniform)
  if (!rows_are_vector_aligned(x, cols)) {
    for (int k = 0; row < rows; row += grid, ++k) {
      const float r = block_row_reduce<BLOCK, UNROLL>(temp[k & 1], x + static_cast<size_t>(row) * cols, cols, false, Op{});
      if (t == 0) out[row] = r;
    }
    return;
  }
  constexpr int TILE = BLOCK * UNROLL;
  const int nv = cols / Vec16<T>::N;  // >= 1: cols >= 1 and cols % N == 0 on this path
  const int tiles = ceil_div(nv, TILE);
  const T* row_ptr = x + static_cast<size_t>(row) * cols;
  RowTile<BLOCK, UNROLL, T> next;
  next.load(row_ptr, t, nv);
  int tile = 0, k = 0;
  float acc = Op::identity();
  while (row < rows) {
    const RowTile<BLOCK, UNROLL, T> cur = next;
    const int base = tile * TILE + t;
    // The step after this one: the next tile of this row, or the first tile of the next row.
    const bool row_ends = tile + 1 == tiles;
    const int next_row = row_ends ? row + grid : row;
    const T* next_ptr = row_ends ? row_ptr + static_cast<size_t>(grid) * cols : row_ptr;
    const int next_tile = row_ends ? 0 : tile + 1;
    if (next_row < rows) next.load(next_ptr, next_tile * TILE + t, nv);
    acc = cur.fold(acc, base, nv, Op{});
    if (row_ends) {
      const float r = BlockReduce(temp[k & 1]).reduce(acc);
      if (t == 0) out[row] = r;
      acc = Op::identity();
      ++k;
    }
    row = next_row, row_ptr = next_ptr, tile = next_tile;
  }
}

}  // namespace epl
