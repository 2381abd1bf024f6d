// epl/tile/order.cuh — the order in which a 1-D grid visits the output tiles of a matrix product.
//
// Grouped order: blocks run in launch order, and GROUP consecutive tile rows are swept column by
// column, so the blocks resident at once share GROUP tile rows of A and a few tile columns of B in
// L2 instead of one tile row against every column of B (Triton's "grouped ordering").
#pragma once

namespace epl {

struct TileCoord {
  int m;  // tile row
  int n;  // tile column
};

// Tile of linear block index `b` over a tiles_m x tiles_n grid of output tiles, grouped by GROUP.
template <int GROUP>
__device__ __forceinline__ TileCoord grouped_tile(int b, int tiles_m, int tiles_n) {
  const int per_group = GROUP * tiles_n;
  const int first_m = (b / per_group) * GROUP;
  const int rows = min(tiles_m - first_m, GROUP);
  const int in_group = b % per_group;
  return TileCoord{first_m + in_group % rows, in_group / rows};
}

// The first row and column of this block's BM x BN tile of an m x n output, grouped by GROUP.
template <int BM, int BN, int GROUP>
__device__ __forceinline__ TileCoord block_tile_origin(int m, int n) {
  const TileCoord t = grouped_tile<GROUP>(static_cast<int>(blockIdx.x), (m + BM - 1) / BM, (n + BN - 1) / BN);
  return TileCoord{t.m * BM, t.n * BN};
}

}  // namespace epl
