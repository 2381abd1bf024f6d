// Record:       gemm/register-double-buffer (catalog/realizations/gemm/register-double-buffer.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ, bf16 in, fp32 accumulate, bf16 out (nt).
// Phases:       prologue: load k tile 0 into registers, store it to shared buffer 0, barrier.
//               Per k tile i: 1. issue the LDGs of tile i + 1 into registers; 2. ldmatrix + mma.sync
//               on buffer i % 2 while those loads are in flight; 3. store the registers to buffer
//               (i + 1) % 2 (its last readers finished before the previous barrier); 4. one barrier.
//               Then the epilogue rounds to bf16 once and stores the tile.
// Tiles:        BM x BN per block of 256 threads (8 warps, 2 along m x 4 along n), BK = 64.
// Shared mem:   2 * (BM + BN) * 64 * 2 bytes dynamic (two buffers).
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  k % 8 == 0 (16-byte rows); 1-D grid of ceil_div(m, BM) * ceil_div(n, BN) blocks.
#include <epl/mma/warp_tile.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>
#include <epl/tile/stage.cuh>

template <int BM, int BN>
__global__ void __launch_bounds__(256)
gemm_register_double_buffer(const __nv_bfloat16* __restrict__ a,  // [m, k]
                            const __nv_bfloat16* __restrict__ b,  // [n, k]
                            __nv_bfloat16* __restrict__ c,        // [m, n]
                            int m, int n, int k) {
  constexpr int kThreads = 256, kWarpsN = 4;
  using TileA = epl::OperandTile<BM, kThreads>;
  using TileB = epl::OperandTile<BN, kThreads>;
  constexpr int kStage = TileA::kElems + TileB::kElems;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);

  const epl::TileCoord o = epl::block_tile_origin<BM, BN, 8>(m, n);
  const int m0 = o.m, n0 = o.n;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int wm0 = (warp / kWarpsN) * (BM / 2), wn0 = (warp % kWarpsN) * (BN / kWarpsN);
  const int tiles = epl::ceil_div(k, epl::kSwizzleRowElems);

  typename TileA::Regs ra;
  typename TileB::Regs rb;
  TileA::load(ra, a, m0, 0, m, k);
  TileB::load(rb, b, n0, 0, n, k);
  TileA::store(ra, s);
  TileB::store(rb, s + TileA::kElems);
  __syncthreads();

  epl::WarpTile<BM / 2, BN / kWarpsN> w;
  w.zero();
  for (int i = 0; i < tiles; ++i) {
    const bool next = i + 1 < tiles;
    if (next) {
      TileA::load(ra, a, m0, (i + 1) * epl::kSwizzleRowElems, m, k);
      TileB::load(rb, b, n0, (i + 1) * epl::kSwizzleRowElems, n, k);
    }
    const __nv_bfloat16* cur = s + (i & 1) * kStage;
    w.mma_k64(cur, cur + TileA::kElems, wm0, wn0);
    if (next) {
      __nv_bfloat16* other = s + ((i + 1) & 1) * kStage;
      TileA::store(ra, other);
      TileB::store(rb, other + TileA::kElems);
    }
    __syncthreads();
  }
  w.store(c, m0 + wm0, n0 + wn0, m, n);
}
