// epl/tile/stage.cuh — a [ROWS x 64] bf16 operand tile from a row-major global matrix into a
// swizzled shared-memory tile (epl/tile/swizzle.cuh), THREADS threads in 16-byte chunks.
//
// Chunk i of the tile (row i / 8, columns 8 * (i % 8) ..) is handled by thread i % THREADS: each
// thread owns ROWS * 8 / THREADS chunks. Chunks past the matrix (row >= rows, or col >= cols; cols
// is a multiple of 8 so a chunk is all in or all out) are zeros, so ragged edges in m, n and k add
// nothing to the product. The synchronous path goes through registers (LDG then STS): load() into
// a TileRegs, store() to shared memory; a register-double-buffered loop loads the next tile while
// the tensor cores work on the current one.
#pragma once

#include <cuda_bf16.h>

#include "swizzle.cuh"

namespace epl {

template <int ROWS, int THREADS>
struct OperandTile {
  static constexpr int kChunks = ROWS * kSwizzleRowElems / 8;
  static_assert(kChunks % THREADS == 0, "every thread owns the same number of chunks");
  static constexpr int kPerThread = kChunks / THREADS;
  static constexpr int kElems = ROWS * kSwizzleRowElems;

  // Row and column (elements) of this thread's j-th chunk.
  __device__ __forceinline__ static int row(int j) { return (static_cast<int>(threadIdx.x) + j * THREADS) >> 3; }
  __device__ __forceinline__ static int col(int j) { return ((static_cast<int>(threadIdx.x) + j * THREADS) & 7) << 3; }

  struct Regs {
    uint4 v[kPerThread];
  };

  // Loads this thread's chunks of the tile at (row0, col0) of g [rows x cols] (ld = cols).
  __device__ __forceinline__ static void load(Regs& r, const __nv_bfloat16* __restrict__ g, int row0, int col0,
                                              int rows, int cols) {
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int gr = row0 + row(j), gc = col0 + col(j);
      r.v[j] = (gr < rows && gc < cols)
                   ? __ldg(reinterpret_cast<const uint4*>(g + static_cast<long long>(gr) * cols + gc))
                   : make_uint4(0u, 0u, 0u, 0u);
    }
  }

  // Stores the chunks of load() into the swizzled shared tile s.
  __device__ __forceinline__ static void store(const Regs& r, __nv_bfloat16* s) {
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      *reinterpret_cast<uint4*>(s + swizzle64(row(j), col(j))) = r.v[j];
    }
  }
};

}  // namespace epl
