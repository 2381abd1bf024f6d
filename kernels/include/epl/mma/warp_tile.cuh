// epl/mma/warp_tile.cuh — one warp's WM x WN tile of C = A·Bᵀ on mma.sync m16n8k16, its operands
// read by ldmatrix from swizzled [rows x 64] shared tiles (epl/tile/swizzle.cuh), and its
// epilogue to a row-major bf16 (or fp32) matrix.
//
// Per k step of 16: WM/16 ldmatrix.x4 of A, WN/16 ldmatrix.x4 of B (each two n8 fragments) and
// (WM/16)·(WN/8) mma. The accumulators are WM·WN/32 fp32 registers a lane. A shared tile of B is
// n-major (k contiguous): the nt layout, a linear layer's weight, needs no transpose; the nn
// layout's k-major B tiles take ldmatrix.trans.
#pragma once

#include <cuda_bf16.h>

#include "../thread/convert.cuh"
#include "../tile/stage.cuh"
#include "../tile/swizzle.cuh"
#include "mma_sync.cuh"

namespace epl {

template <int WM, int WN>
struct WarpTile {
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile of whole m16 x n16 pieces");
  static constexpr int kM = WM / 16;  // m16 fragments
  static constexpr int kN = WN / 8;   // n8 fragments
  float acc[kM][kN][4];

  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < kM; ++i)
#pragma unroll
      for (int j = 0; j < kN; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
  }

  // acc += the warp's rows [wm0, wm0 + WM) of sa times its rows [wn0, wn0 + WN) of sb, over the
  // 64 k columns of the shared tiles. Layout nn: sb is OperandTileKN's [64 k x BN n] sub-tiles
  // (epl/tile/stage.cuh) and its fragments come through ldmatrix.trans.
  template <GemmLayout L = GemmLayout::nt>
  __device__ __forceinline__ void mma_k64(const __nv_bfloat16* sa, const __nv_bfloat16* sb, int wm0, int wn0) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
    for (int kk = 0; kk < kSwizzleRowElems; kk += 16) {
      unsigned a[kM][4];
      unsigned b[kN][2];
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        const int r = wm0 + i * 16 + (lane & 15);
        ldmatrix_x4(a[i], sa + swizzle64(r, kk + ((lane >> 4) << 3)));
      }
#pragma unroll
      for (int j = 0; j < kN; j += 2) {
        const int q = lane >> 3;  // matrix q: n + 8 (q >> 1), k + 8 (q & 1)
        unsigned t[4];
        if constexpr (L == GemmLayout::nt) {
          const int r = wn0 + j * 8 + (lane & 7) + ((q >> 1) << 3);
          ldmatrix_x4(t, sb + swizzle64(r, kk + ((q & 1) << 3)));
        } else {
          const int c = wn0 + j * 8 + ((q >> 1) << 3);  // a chunk of 8 n, inside one 64-wide sub-tile
          const int r = kk + (lane & 7) + ((q & 1) << 3);
          ldmatrix_x4_trans(t, sb + (c >> 6) * (kSwizzleRowElems * kSwizzleRowElems) + swizzle64(r, c & 63));
        }
        b[j][0] = t[0];
        b[j][1] = t[1];
        b[j + 1][0] = t[2];
        b[j + 1][1] = t[3];
      }
#pragma unroll
      for (int i = 0; i < kM; ++i)
#pragma unroll
        for (int j = 0; j < kN; ++j) mma_bf16_16816(acc[i][j], a[i], b[j][0], b[j][1]);
    }
  }

  // Rounds the tile once to Out (bf16: a gemm's output; float: a split-K partial, exact) and
  // stores it at rows m0 + [0, WM), columns n0 + [0, WN) of c [rows x cols], row-major; pairs of
  // columns as one store (4 bytes of bf16, 8 of float) where cols is even.
  template <typename Out>
  __device__ __forceinline__ void store(Out* __restrict__ c, int m0, int n0, int rows, int cols) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const bool pairs = (cols & 1) == 0;
#pragma unroll
    for (int i = 0; i < kM; ++i)
#pragma unroll
      for (int j = 0; j < kN; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = m0 + i * 16 + (lane >> 2) + h * 8;
          const int col = n0 + j * 8 + ((lane & 3) << 1);
          if (r >= rows) continue;
          Out* p = c + static_cast<long long>(r) * cols + col;
          if (pairs && col + 1 < cols) {
            store_pair(p, acc[i][j][2 * h], acc[i][j][2 * h + 1]);
          } else {
            if (col < cols) p[0] = from_float<Out>(acc[i][j][2 * h]);
            if (col + 1 < cols) p[1] = from_float<Out>(acc[i][j][2 * h + 1]);
          }
        }
  }

 private:
  __device__ __forceinline__ static void store_pair(__nv_bfloat16* p, float x, float y) {
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(x, y);
  }
  __device__ __forceinline__ static void store_pair(float* p, float x, float y) {
    *reinterpret_cast<float2*>(p) = make_float2(x, y);
  }
};

}  // namespace epl
