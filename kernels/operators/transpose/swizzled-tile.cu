// Record:       transpose/swizzled-tile (catalog/realizations/transpose/swizzled-tile.yaml)
// Contract:     layout-transpose — y[b, j, i] = x[b, i, j], x [batch, rows, cols] row-major, exact.
// Phases:       as transpose/padded-tile, with the tile dense in size and element (r, c) stored at
//               column c ^ s(r) (epl/tile/shared_tile.cuh): the column reads spread over every bank.
// Traffic:      both global sides coalesced; sizeof(T) bytes per element read and written once.
// Shared mem:   TILE * TILE * sizeof(T) static. Determinism: bitwise (a copy).
// Constraints:  TILE a power of two, a multiple of 32 and of BY; gridDim = (ceil(cols/TILE),
//               ceil(rows/TILE), batch).
#include <cuda_bf16.h>
#include <epl/tile/transpose.cuh>

template <int TILE, int BY, typename T>
__global__ void __launch_bounds__(32 * BY)
transpose_swizzled(const T* __restrict__ x, T* __restrict__ y, int /*batch*/, int rows, int cols) {
  using Tile = epl::SharedTile<T, TILE, TILE, epl::TileLayout::kSwizzled>;
  __shared__ T smem[Tile::kElements];
  const size_t plane = static_cast<size_t>(rows) * cols * blockIdx.z;
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  if (r0 + TILE <= rows && c0 + TILE <= cols) {
    epl::transpose_tile_staged<TILE, BY, epl::TileLayout::kSwizzled, false>(x + plane, y + plane, rows, cols, r0, c0, Tile{smem});
  } else {
    epl::transpose_tile_staged<TILE, BY, epl::TileLayout::kSwizzled, true>(x + plane, y + plane, rows, cols, r0, c0, Tile{smem});
  }
}
