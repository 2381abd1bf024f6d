// Record:       transpose/padded-tile (catalog/realizations/transpose/padded-tile.yaml)
// Contract:     layout-transpose — y[b, j, i] = x[b, i, j], x [batch, rows, cols] row-major, exact.
// Phases:       a block (32, BY) per TILE x TILE tile: 1. loads along x's rows into a shared tile
//               of pitch TILE + PAD; 2. __syncthreads; 3. reads the tile's columns and stores along
//               y's rows. PAD 0 is the dense control: its column reads hit one bank per word.
// Traffic:      both global sides coalesced; sizeof(T) bytes per element read and written once.
// Shared mem:   TILE * (TILE + PAD) * sizeof(T) static. Determinism: bitwise (a copy).
// Constraints:  TILE a multiple of 32 and of BY; gridDim = (ceil(cols/TILE), ceil(rows/TILE), batch).
#include <cuda_bf16.h>
#include <epl/tile/transpose.cuh>

template <int TILE, int BY, int PAD, typename T>
__global__ void __launch_bounds__(32 * BY)
transpose_padded(const T* __restrict__ x, T* __restrict__ y, int /*batch*/, int rows, int cols) {
  constexpr epl::TileLayout L = PAD ? epl::TileLayout::kPadded : epl::TileLayout::kDense;
  using Tile = epl::SharedTile<T, TILE, TILE, L>;
  __shared__ T smem[Tile::kElements];
  const size_t plane = static_cast<size_t>(rows) * cols * blockIdx.z;
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  if (r0 + TILE <= rows && c0 + TILE <= cols) {
    epl::transpose_tile_staged<TILE, BY, L, false>(x + plane, y + plane, rows, cols, r0, c0, Tile{smem});
  } else {
    epl::transpose_tile_staged<TILE, BY, L, true>(x + plane, y + plane, rows, cols, r0, c0, Tile{smem});
  }
}
