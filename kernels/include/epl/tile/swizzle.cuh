// epl/tile/swizzle.cuh — the XOR swizzle of a shared-memory operand tile of 64 bf16 (128 B) a row.
//
// A row of the tile is 8 chunks of 16 bytes; chunk c of row r is stored at chunk c ^ (r & 7). The
// eight rows one ldmatrix phase reads (same logical chunk, consecutive rows) then sit in eight
// distinct chunks, i.e. all 32 banks, and so do the eight 16-byte chunks a warp's stores write.
#pragma once

namespace epl {

// Elements a row of a swizzled operand tile: 64 bf16 = 128 bytes = 8 chunks of 16 bytes.
constexpr int kSwizzleRowElems = 64;

// The element offset of (row, col) in a swizzled [rows x 64] tile; col a multiple of 8 (a chunk).
__device__ __forceinline__ int swizzle64(int row, int col) {
  return row * kSwizzleRowElems + ((((col >> 3) ^ row) & 7) << 3);
}

}  // namespace epl
