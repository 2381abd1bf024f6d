// epl/tile/stage.cuh — a [ROWS x 64] bf16 operand tile from a row-major global matrix into a
// swizzled shared-memory tile (epl/tile/swizzle.cuh), THREADS threads in 16-byte chunks.
//
// Chunk i of the tile (row i / 8, columns 8 * (i % 8) ..) is handled by thread i % THREADS: each
// thread owns ROWS * 8 / THREADS chunks. Chunks past the matrix (row >= rows, or col >= cols; cols
// is a multiple of 8 so a chunk is all in or all out) are zeros, so ragged edges in m, n and k add
// nothing to the product. The synchronous path goes through registers (LDG then STS): load() into
// a TileRegs, store() to shared memory; a register-double-buffered loop loads the next tile while
// the tensor cores work on the current one. OperandTileKN stages B of the nn layout (B [k, n]).
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

  // load() for any cols, one element at a time: rows of g need not start on 16-byte boundaries.
  __device__ __forceinline__ static void load_unaligned(Regs& r, const __nv_bfloat16* __restrict__ g, int row0,
                                                        int col0, int rows, int cols) {
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int gr = row0 + row(j), gc = col0 + col(j);
      alignas(16) __nv_bfloat16 e[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        e[i] = (gr < rows && gc + i < cols) ? __ldg(g + static_cast<long long>(gr) * cols + gc + i) : __float2bfloat16_rn(0.0f);
      }
      r.v[j] = *reinterpret_cast<const uint4*>(e);
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

// How a matrix product's B operand is stored: nt, B [n, k] row-major (a linear layer's weight, k
// contiguous); nn, B [k, n] row-major (n contiguous).
enum class GemmLayout { nt, nn };

// The B tile of k tiles of 64 when B is stored [k, n] (layout nn): the 64 x BN slab at (k0, n0) as
// BN / 64 swizzled [64 k x 64 n] sub-tiles, sub-tile s holding columns n0 + 64 s .. (row = k), read
// by ldmatrix.trans (epl/mma/warp_tile.cuh). Same chunks a thread as OperandTile<BN, THREADS>; rows
// of B take 16-byte loads when n % 8 == 0, else element loads.
template <int BN, int THREADS>
struct OperandTileKN {
  using Sub = OperandTile<kSwizzleRowElems, THREADS>;
  static constexpr int kSubs = BN / kSwizzleRowElems;
  static_assert(kSubs * kSwizzleRowElems == BN, "BN a multiple of 64");
  static constexpr int kElems = BN * kSwizzleRowElems;

  struct Regs {
    typename Sub::Regs sub[kSubs];
  };

  // Loads this thread's chunks of B's tile at (n0, k0) of the logical [n x k] operand, g [k x n]
  // row-major (the arguments in OperandTile<BN>::load's order for B [n, k]).
  __device__ __forceinline__ static void load(Regs& r, const __nv_bfloat16* __restrict__ g, int n0, int k0, int n,
                                              int k) {
    if ((n & 7) == 0) {
#pragma unroll
      for (int s = 0; s < kSubs; ++s) Sub::load(r.sub[s], g, k0, n0 + s * kSwizzleRowElems, k, n);
    } else {
#pragma unroll
      for (int s = 0; s < kSubs; ++s) Sub::load_unaligned(r.sub[s], g, k0, n0 + s * kSwizzleRowElems, k, n);
    }
  }

  __device__ __forceinline__ static void store(const Regs& r, __nv_bfloat16* s) {
#pragma unroll
    for (int i = 0; i < kSubs; ++i) Sub::store(r.sub[i], s + i * Sub::kElems);
  }
};

// The B staging tile of a layout: OperandTile (nt) or OperandTileKN (nn).
template <GemmLayout L, int BN, int THREADS>
struct OperandTileB {
  using type = OperandTile<BN, THREADS>;
};
template <int BN, int THREADS>
struct OperandTileB<GemmLayout::nn, BN, THREADS> {
  using type = OperandTileKN<BN, THREADS>;
};

}  // namespace epl
