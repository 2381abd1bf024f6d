// epl/tile/transpose.cuh — one block transposes one TILE x TILE tile of a [rows, cols] row-major
// matrix into the [cols, rows] output: threads (32, BY), TILE a multiple of 32 and of BY.
//
// transpose_tile_direct: each thread copies its elements straight from x to y; the warp's loads run
// along x's rows (coalesced) and its stores along y's columns, one 32-byte sector per element.
// transpose_tile_staged: the warp loads along x's rows into a SharedTile, the block synchronizes, and
// the warp reads the tile's columns to store along y's rows: both global sides coalesced, the shared
// layout (epl/tile/shared_tile.cuh) deciding the column reads' bank conflicts. EDGE adds the bounds
// checks of a tile that reaches past the matrix; interior tiles run without them.
//
// Records: catalog/realizations/transpose/*.yaml.
#pragma once

#include "shared_tile.cuh"

namespace epl {

template <int TILE, int BY, bool EDGE, typename T>
__device__ __forceinline__ void transpose_tile_direct(const T* __restrict__ x, T* __restrict__ y, int rows,
                                                      int cols, int r0, int c0) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int k = 0; k < TILE; k += BY) {
#pragma unroll
    for (int j = 0; j < TILE; j += 32) {
      const int r = r0 + ty + k, c = c0 + tx + j;
      if (!EDGE || (r < rows && c < cols)) y[static_cast<size_t>(c) * rows + r] = x[static_cast<size_t>(r) * cols + c];
    }
  }
}

template <int TILE, int BY, TileLayout L, bool EDGE, typename T>
__device__ __forceinline__ void transpose_tile_staged(const T* __restrict__ x, T* __restrict__ y, int rows,
                                                      int cols, int r0, int c0, SharedTile<T, TILE, TILE, L> tile) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int k = 0; k < TILE; k += BY) {
#pragma unroll
    for (int j = 0; j < TILE; j += 32) {
      const int r = ty + k, c = tx + j;
      if (!EDGE || (r0 + r < rows && c0 + c < cols)) tile.at(r, c) = x[static_cast<size_t>(r0 + r) * cols + c0 + c];
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < TILE; k += BY) {
#pragma unroll
    for (int j = 0; j < TILE; j += 32) {
      const int c = ty + k, r = tx + j;  // y's row c0 + c, its element r0 + r
      if (!EDGE || (c0 + c < cols && r0 + r < rows)) y[static_cast<size_t>(c0 + c) * rows + r0 + r] = tile.at(r, c);
    }
  }
}

// The byte offset of element (r, c) of a box of 128-byte rows that the copy engine wrote with the
// 128B swizzle (CU_TENSOR_MAP_SWIZZLE_128B): the 16-byte chunk index XORed with the row's index mod 8.
// The box must start on a 1024-byte boundary, where the pattern repeats.
template <typename T>
__device__ __forceinline__ int swizzle128_offset(int r, int c) {
  return r * 128 + ((c * static_cast<int>(sizeof(T))) ^ ((r & 7) << 4));
}

// The block transposes a 128-byte-row box a (TILE x TILE, TILE = 128 / sizeof(T), as a tensor-map load
// with the 128B swizzle lands it) into b, laid out for a tensor-map store with the same swizzle.
// Lanes run along a's columns' rows: b's rows are written conflict-free (each lane's bytes in its
// own or its neighbour's word), a's column reads spread over the 8 chunk positions the swizzle
// permutes (4-way where the dense box would be 32-way).
template <int BLOCK, typename T>
__device__ __forceinline__ void transpose_swizzled128(const unsigned char* a, unsigned char* b) {
  constexpr int TILE = 128 / static_cast<int>(sizeof(T));
#pragma unroll 4
  for (int i = threadIdx.x; i < TILE * TILE; i += BLOCK) {
    const int r = i % TILE, c = i / TILE;
    *reinterpret_cast<T*>(b + swizzle128_offset<T>(c, r)) = *reinterpret_cast<const T*>(a + swizzle128_offset<T>(r, c));
  }
}

}  // namespace epl
