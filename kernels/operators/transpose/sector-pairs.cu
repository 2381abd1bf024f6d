// Record:       transpose/sector-pairs (catalog/realizations/transpose/sector-pairs.yaml)
// Contract:     layout-transpose — y[b, j, i] = x[b, i, j], x [batch, rows, cols] row-major, exact.
// Phases:       as transpose/sector-tile for 2-byte types, with the staged tile column-major
//               (epl/tile/transpose.cuh, transpose_tile_sector_pairs): 1. loads along x's rows
//               [r0 - 15, r0 + TILE) into registers, then 2-byte stores down the tile's columns;
//               2. __syncthreads; 3. per y row, its segment shifted to a sector boundary and stored
//               as 128-byte warp stores, each lane's 4-byte word one 4-byte shared load.
// Traffic:      2 bytes per element read and written once from DRAM; (TILE + 15) / TILE of the reads
//               from L2 (the shift's extra rows).
// Shared mem:   TILE * SectorPairs<TILE>::kPitch * 2 bytes static. Determinism: bitwise (a copy).
// Constraints:  TILE * 2 = ROW_BYTES, a multiple of 128; gridDim = (ceil(cols / TILE),
//               ceil((rows + 15) / TILE), batch).
#include <cuda_bf16.h>
#include <epl/tile/transpose.cuh>

template <int ROW_BYTES, int BY, typename T>
__global__ void __launch_bounds__(32 * BY)
transpose_sector_pairs(const T* __restrict__ x, T* __restrict__ y, int /*batch*/, int rows, int cols) {
  constexpr int TILE = ROW_BYTES / static_cast<int>(sizeof(T));
  using S = epl::SectorPairs<TILE>;
  __shared__ alignas(16) T smem[S::kElements];
  const size_t plane = static_cast<size_t>(rows) * cols * blockIdx.z;
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  if (r0 >= S::kSector - 1 && r0 + TILE <= rows && c0 + TILE <= cols) {
    epl::transpose_tile_sector_pairs<TILE, BY, false>(x + plane, y + plane, rows, cols, r0, c0, smem);
  } else {
    epl::transpose_tile_sector_pairs<TILE, BY, true>(x + plane, y + plane, rows, cols, r0, c0, smem);
  }
}
