// epl/tile/shared_tile.cuh — a ROWS x COLS tile of T in shared memory and where element (r, c) lives:
// dense (row pitch COLS), padded (pitch COLS + 1) or XOR-swizzled (pitch COLS, the column index XORed
// with a function of the row).
//
// Why the layouts exist: shared memory has 32 banks of 4 bytes; the 32 lanes of a warp that read a
// column of a dense tile of 32 fp32 columns hit one bank 32 times, and the access replays 32 times.
// Padding shifts each row by one word (row r's column c sits in bank (r + c) % 32 for fp32), so a
// column spreads over all banks, at the cost of ROWS extra elements. The swizzle keeps the pitch and
// stores (r, c) at column c ^ s(r), s(r) = r for 4-byte elements and 2 * (r / 2) for 2-byte ones
// (two elements share a word): a row is permuted within itself, so row accesses stay conflict-free,
// and a column lands in 32 distinct words of distinct banks, with no extra space.
//
// Records: catalog/realizations/transpose/{padded-tile,swizzled-tile}.yaml (primitive
//          shared-memory-staging).
#pragma once

namespace epl {

enum class TileLayout { kDense, kPadded, kSwizzled };

template <typename T, int ROWS, int COLS, TileLayout L>
struct SharedTile {
  static_assert((COLS & (COLS - 1)) == 0, "the swizzle XORs within a power-of-two row");
  static constexpr int kPitch = COLS + (L == TileLayout::kPadded ? 1 : 0);
  static constexpr int kElements = ROWS * kPitch;
  // Elements that share a 4-byte bank word (1 for fp32, 2 for bf16).
  static constexpr int kPerWord = sizeof(T) >= 4 ? 1 : 4 / static_cast<int>(sizeof(T));

  T* data;

  __device__ __forceinline__ static int offset(int r, int c) {
    if constexpr (L == TileLayout::kSwizzled) {
      return r * COLS + (c ^ (((r / kPerWord) * kPerWord) & (COLS - 1)));
    } else {
      return r * kPitch + c;
    }
  }
  __device__ __forceinline__ T& at(int r, int c) const { return data[offset(r, c)]; }
};

}  // namespace epl
