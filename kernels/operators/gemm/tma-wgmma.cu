// Records:      gemm/tma-wgmma (layout nt) and gemm/tma-wgmma-nn (catalog/realizations/gemm/), one
//               record a B layout, since each describes B by its own tensor map.
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ (nt) or A · B [k, n] (nn), bf16 in, fp32
//               accumulate, bf16 out.
// Phases:       (the k loop is epl::TmaWgmmaLoop, epl/mma/tma_wgmma_loop.cuh, shared with gemm/split-k)
//               thread 0 prefetches the two tensor maps and arms one mbarrier a stage; prologue:
//               thread 0 loads k tiles 0 .. L-1 (L = STAGES - 2) as TMA boxes (BM x 64 of A;
//               BN x 64 of B in nt, BN / 64 boxes of 64 x 64 in nn; 128-byte swizzle, zeros past
//               the matrix), their bytes counted on the stage's mbarrier. Per k tile i: 1. every thread waits for the stage's phase;
//               2. one barrier (every warpgroup passed wgmma.wait_group 1 at tile i - 1, so the
//               slot of tile i - 2 is free); 3. thread 0 loads tile i + L into it; 4. each
//               warpgroup issues four wgmma.m64n{BN}k16, commits, waits until at most one group
//               runs. Then wait 0 and the epilogue (epl::WarpTile<16, BN>).
// Tiles:        BM x BN per block of 2 BM threads (BM / 64 warpgroups of 64 x BN), BK = 64. BM 64
//               halves a stage's A box, so at few rows (m <= 128) twice the tiles cover the SMs
//               and a deeper ring fits the same shared memory.
// Shared mem:   STAGES * (BM + BN) * 128 bytes of tiles (1024-byte aligned), then STAGES mbarriers.
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  sm_90a; k % 8 == 0, and n % 8 == 0 in nn (a tensor map's row stride is a multiple
//               of 16 bytes).
#include <epl/mma/tma_wgmma_loop.cuh>
#include <epl/mma/warp_tile.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>

template <int BN, int STAGES, epl::GemmLayout L = epl::GemmLayout::nt, int BM = 128>
__global__ void __launch_bounds__(2 * BM)
gemm_tma_wgmma(const __grid_constant__ epl::TensorMap a_tiles,  // a [m, k], box BM x 64
               const __grid_constant__ epl::TensorMap b_tiles,  // b [n, k], box BN x 64; nn: b [k, n], 64 x 64
               __nv_bfloat16* __restrict__ c,                   // [m, n]
               int m, int n, int k) {
  using Loop = epl::TmaWgmmaLoop<BN, STAGES, L, BM>;
  extern __shared__ __align__(1024) unsigned char smem[];
  const epl::TileCoord o = epl::block_tile_origin<Loop::kBM, BN, 8>(m, n);
  const int group = static_cast<int>(threadIdx.x) >> 7;
  const int warp = (static_cast<int>(threadIdx.x) >> 5) & 3;

  epl::WarpTile<16, BN> w;
  Loop::accumulate(w, smem, a_tiles, b_tiles, o.m, o.n, 0, epl::ceil_div(k, epl::kSwizzleRowElems));
  w.store(c, o.m + group * 64 + warp * 16, o.n, m, n);
}
