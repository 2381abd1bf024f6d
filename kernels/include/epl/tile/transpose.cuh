// epl/tile/transpose.cuh — one block transposes one TILE x TILE tile of a [rows, cols] row-major
// matrix into the [cols, rows] output: threads (32, BY), TILE a multiple of 32 and of BY.
//
// transpose_tile_direct: each thread copies its elements straight from x to y; the warp's loads run
// along x's rows (coalesced) and its stores along y's columns, one 32-byte sector per element.
// transpose_tile_staged: the warp loads along x's rows into a SharedTile, the block synchronizes, and
// the warp reads the tile's columns to store along y's rows: both global sides coalesced, the shared
// layout (epl/tile/shared_tile.cuh) deciding the column reads' bank conflicts. EDGE adds the bounds
// checks of a tile that reaches past the matrix; interior tiles run without them.
// transpose_tile_sector_stores: staged, with y's row segments shifted to whole sectors (below).
//
// transpose_tile_sector_pairs: the same stores for 2-byte types, the tile staged column by column
// so that each stored word is one shared read (below).
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

// transpose_tile_sector_stores: as transpose_tile_staged, but every 32-byte sector of y is written
// whole by one warp store, whatever y's row length. With rows R not a multiple of a sector's E = 32 /
// sizeof(T) elements, the TILE-aligned segments of y's rows start inside sectors, and the two sectors
// at a segment's ends are each written half by this block and half by the next (partial sectors,
// which the L2 must fill from DRAM before it can write them back under ECC). Here each y row's
// segment is shifted down by its start's offset s within a sector (0 <= s < E; the same for every
// block of that row, since TILE * sizeof(T) is a whole number of sectors): block rows [r0 - s, r0 +
// TILE - s). The block stages x rows [r0 - (E - 1), r0 + TILE) to cover every shift (E - 1 rows
// more than the staged tile reads; from L2, where the neighbouring block read them too), and a warp
// stores 128 bytes of a row, a 4-byte word a lane (two bf16 elements packed), at a sector boundary.
// Launch: TILE * sizeof(T) a multiple of 128, blocks (32, BY), gridDim.y = ceil_div(rows + E - 1,
// TILE) (the shifted segments reach E - 1 past the last aligned one). EDGE: the bounds checks of a
// block with r0 < E - 1, r0 + TILE > rows or c0 + TILE > cols, and element stores there.
template <int TILE, typename T>
struct SectorTile {
  static constexpr int kSector = 32 / static_cast<int>(sizeof(T));  // elements a 32-byte sector holds
  static constexpr int kRows = TILE + kSector - 1;                  // x rows staged
  static constexpr int kPerLane = 4 / static_cast<int>(sizeof(T));  // elements a lane stores at once
  static_assert(TILE * sizeof(T) % 128 == 0 && sizeof(T) <= 4, "a warp store is 128 bytes of whole sectors");
  using Tile = SharedTile<T, kRows, TILE, TileLayout::kPadded>;  // pitch TILE + 1: columns conflict-free
};

// The offset of p within its 32-byte sector, in elements.
template <typename T>
__device__ __forceinline__ int sector_offset(const T* p) {
  return static_cast<int>((reinterpret_cast<size_t>(p) & 31) / sizeof(T));
}

// The registers of a sector-shifted stage: x rows [first, first + ROWS) by the block's columns
// [c0, c0 + 32 J), row i at v[i / BY][j] of thread (tx, i % BY), lanes along the rows; T{} past ROWS
// and, with EDGE, outside the matrix. Every load is issued before the caller's first shared store:
// written as one loop with the stores, ptxas pairs each load with its store and a warp keeps one row
// (64 bytes in bf16) in flight.
template <int ROWS, int BY, bool EDGE, typename T, int K, int J>
__device__ __forceinline__ void load_shifted_rows(const T* __restrict__ x, int rows, int cols, int first, int c0,
                                                  T (&v)[K][J]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = ty + k * BY;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int r = first + i, c = c0 + tx + 32 * j;
      const bool in = i < ROWS && (!EDGE || (r >= 0 && r < rows && c < cols));
      v[k][j] = in ? x[static_cast<size_t>(r) * cols + c] : T{};
    }
  }
}

template <int TILE, int BY, bool EDGE, typename T>
__device__ __forceinline__ void transpose_tile_sector_stores(const T* __restrict__ x, T* __restrict__ y, int rows,
                                                             int cols, int r0, int c0,
                                                             typename SectorTile<TILE, T>::Tile tile) {
  using S = SectorTile<TILE, T>;
  constexpr int E = S::kSector, V = S::kPerLane;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int first = r0 - (E - 1);  // x row of tile row 0
  constexpr int K = (S::kRows + BY - 1) / BY, J = TILE / 32;
  T v[K][J];
  load_shifted_rows<S::kRows, BY, EDGE>(x, rows, cols, first, c0, v);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = ty + k * BY;
    if (i < S::kRows) {
#pragma unroll
      for (int j = 0; j < J; ++j) tile.at(i, tx + 32 * j) = v[k][j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < TILE; k += BY) {
    const int c = c0 + ty + k;  // y's row
    if (EDGE && c >= cols) continue;
    T* row = y + static_cast<size_t>(c) * rows;
    const int s = sector_offset(row + r0);
    const int a = r0 - s;  // the segment's first element: a sector boundary
#pragma unroll
    for (int j = 0; j < TILE; j += 32 * V) {
      const int r = a + j + tx * V;
      const int i = r - first;
      if (!EDGE) {
        if constexpr (V == 1) {
          row[r] = tile.at(i, ty + k);
        } else {
          struct alignas(4) Word { T v[V]; } w;
#pragma unroll
          for (int v = 0; v < V; ++v) w.v[v] = tile.at(i + v, ty + k);
          *reinterpret_cast<Word*>(row + r) = w;
        }
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (r + v >= 0 && r + v < rows) row[r + v] = tile.at(i + v, ty + k);
      }
    }
  }
}

// transpose_tile_sector_pairs: transpose_tile_sector_stores for a 2-byte T with the staged tile laid
// out column-major. A y row's word (two elements: x rows r and r + 1 of one column) is then two
// neighbouring halfwords of one column, read as one 4-byte shared load; the row-major tile reads them
// as two 2-byte loads and packs them (PRMT), three instructions a word where this takes one
// (transpose/sector-tile's bf16 gap is instructions per byte). Column j keeps staged row i at
// halfword j * kPitch + sh_j + i, where the parity sh_j puts the first element of y row c0 + j's
// shifted segment on a word; kPitch is even and kPitch / 2 odd, so the 32 lanes of a warp that write
// one staged row across 32 columns land in distinct banks but where sh_j moves one by a word.
template <int TILE>
struct SectorPairs {
  static constexpr int kSector = 16;                                       // 2-byte elements a sector
  static constexpr int kRows = TILE + kSector - 1;                         // x rows staged
  static constexpr int kPitch = ((((kRows + 1) / 2) | 1) * 2);             // >= kRows + 1 (room for sh_j)
  static constexpr int kElements = TILE * kPitch;
  static_assert(TILE * 2 % 128 == 0, "a warp store is 128 bytes of whole sectors");
};

template <int TILE, int BY, bool EDGE, typename T>
__device__ __forceinline__ void transpose_tile_sector_pairs(const T* __restrict__ x, T* __restrict__ y, int rows,
                                                            int cols, int r0, int c0, T* __restrict__ smem) {
  static_assert(sizeof(T) == 2, "pairs of 2-byte elements make the 4-byte words stored");
  using S = SectorPairs<TILE>;
  constexpr int E = S::kSector, P = S::kPitch;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int first = r0 - (E - 1);  // x row of staged row 0
  // The offset s of y row c's element r0 within its sector (0 <= s < E): its segment starts at r0 - s.
  const auto offset = [&](int c) { return sector_offset(y + static_cast<size_t>(c) * rows + r0); };
  constexpr int K = (S::kRows + BY - 1) / BY, J = TILE / 32;
  T v[K][J];
  load_shifted_rows<S::kRows, BY, EDGE>(x, rows, cols, first, c0, v);
  int base[J];  // column tx + 32 j's first halfword: j * P + sh_j, sh_j = the parity of E - 1 - s
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int col = tx + 32 * j;
    base[j] = col * P + ((E - 1 - offset(c0 + col)) & 1);
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = ty + k * BY;
    if (i < S::kRows) {
#pragma unroll
      for (int j = 0; j < J; ++j) smem[base[j] + i] = v[k][j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < TILE; k += BY) {
    const int col = ty + k, c = c0 + col;  // y's row
    if (EDGE && c >= cols) continue;
    T* row = y + static_cast<size_t>(c) * rows;
    const int s = offset(c);
    // Staged row E - 1 - s holds element r0 - s, at halfword sh + E - 1 - s of the column: rounded up
    // to even by sh, that is (E - s) & ~1.
    const T* column = smem + col * P + ((E - s) & ~1);
#pragma unroll
    for (int j = 0; j < TILE; j += 64) {
      const int r = r0 - s + j + 2 * tx;  // a word of y's row, on a sector boundary plus 4 tx bytes
      const T* pair = column + j + 2 * tx;
      if (!EDGE) {
        *reinterpret_cast<unsigned*>(row + r) = *reinterpret_cast<const unsigned*>(pair);
      } else {
#pragma unroll
        for (int e = 0; e < 2; ++e)
          if (r + e >= 0 && r + e < rows) row[r + e] = pair[e];
      }
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
