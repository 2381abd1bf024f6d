// Record:       transpose/sector-tile (catalog/realizations/transpose/sector-tile.yaml)
// Contract:     layout-transpose — y[b, j, i] = x[b, i, j], x [batch, rows, cols] row-major, exact.
// Phases:       a block (32, BY) per TILE columns of x: 1. loads along x's rows [r0 - (E - 1), r0 +
//               TILE) into registers, all of them before the first store into a shared tile of
//               pitch TILE + 1 (E = 32 / sizeof(T)); 2. __syncthreads;
//               3. per y row, shifts its segment to start on a 32-byte sector and stores it as
//               128-byte warp stores of whole sectors (epl/tile/transpose.cuh,
//               transpose_tile_sector_stores).
// Traffic:      sizeof(T) bytes per element read and written once from DRAM; (TILE + E - 1) / TILE
//               of the reads from L2 (the shift's extra rows).
// Shared mem:   (TILE + E - 1) * (TILE + 1) * sizeof(T) static. Determinism: bitwise (a copy).
// Constraints:  TILE * sizeof(T) = ROW_BYTES, a multiple of 128; gridDim = (ceil(cols / TILE),
//               ceil((rows + E - 1) / TILE), batch).
#include <cuda_bf16.h>
#include <epl/tile/transpose.cuh>

template <int ROW_BYTES, int BY, typename T>
__global__ void __launch_bounds__(32 * BY)
transpose_sector(const T* __restrict__ x, T* __restrict__ y, int /*batch*/, int rows, int cols) {
  constexpr int TILE = ROW_BYTES / static_cast<int>(sizeof(T));
  using S = epl::SectorTile<TILE, T>;
  __shared__ T smem[S::Tile::kElements];
  const size_t plane = static_cast<size_t>(rows) * cols * blockIdx.z;
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  if (r0 >= S::kSector - 1 && r0 + TILE <= rows && c0 + TILE <= cols) {
    epl::transpose_tile_sector_stores<TILE, BY, false>(x + plane, y + plane, rows, cols, r0, c0, typename S::Tile{smem});
  } else {
    epl::transpose_tile_sector_stores<TILE, BY, true>(x + plane, y + plane, rows, cols, r0, c0, typename S::Tile{smem});
  }
}
