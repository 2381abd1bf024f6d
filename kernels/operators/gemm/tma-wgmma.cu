// Record:       gemm/tma-wgmma (catalog/realizations/gemm/tma-wgmma.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ, bf16 in, fp32 accumulate, bf16 out (nt).
// Phases:       thread 0 prefetches the two tensor maps and arms one mbarrier a stage; prologue:
//               thread 0 loads k tiles 0 .. L-1 (L = STAGES - 2) as TMA boxes (128 x 64 of A,
//               BN x 64 of B, 128-byte swizzle, zeros past the matrix), their bytes counted on the
//               stage's mbarrier. Per k tile i: 1. every thread waits for the stage's phase;
//               2. one barrier (every warpgroup passed wgmma.wait_group 1 at tile i - 1, so the
//               slot of tile i - 2 is free); 3. thread 0 loads tile i + L into it; 4. each
//               warpgroup issues four wgmma.m64n{BN}k16, commits, waits until at most one group
//               runs. Then wait 0 and the epilogue (epl::WarpTile<16, BN>).
// Tiles:        128 x BN per block of 256 threads (2 warpgroups of 64 x BN), BK = 64.
// Shared mem:   STAGES * (128 + BN) * 128 bytes of tiles (1024-byte aligned), then STAGES mbarriers.
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  sm_90a; k % 8 == 0 (a tensor map's row stride is a multiple of 16 bytes).
#include <epl/block/mbarrier.cuh>
#include <epl/block/tensor_copy.cuh>
#include <epl/mma/warp_tile.cuh>
#include <epl/mma/wgmma.cuh>
#include <epl/tile/order.cuh>
#include <epl/tile/swizzle.cuh>
#include <epl/util.cuh>

template <int BN, int STAGES>
__global__ void __launch_bounds__(256)
gemm_tma_wgmma(const __grid_constant__ epl::TensorMap a_tiles,  // a [m, k], box 128 x 64
               const __grid_constant__ epl::TensorMap b_tiles,  // b [n, k], box BN x 64
               __nv_bfloat16* __restrict__ c,                   // [m, n]
               int m, int n, int k) {
  constexpr int BM = 128, kLead = STAGES - 2;
  static_assert(STAGES >= 3, "one slot for the running wgmma group, one landing, one in flight");
  constexpr int kElemsA = BM * epl::kSwizzleRowElems;
  constexpr int kStage = (BM + BN) * epl::kSwizzleRowElems;
  constexpr unsigned kStageBytes = kStage * 2;
  extern __shared__ __align__(1024) unsigned char smem[];
  __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + STAGES * kStageBytes);

  const epl::TileCoord o = epl::block_tile_origin<BM, BN, 8>(m, n);
  const int m0 = o.m, n0 = o.n;
  const bool producer = threadIdx.x == 0;
  const int group = static_cast<int>(threadIdx.x) >> 7;
  const int warp = (static_cast<int>(threadIdx.x) >> 5) & 3;
  const int tiles = epl::ceil_div(k, epl::kSwizzleRowElems);

  if (producer) {
    epl::tma_prefetch_map(a_tiles);
    epl::tma_prefetch_map(b_tiles);
    for (int i = 0; i < STAGES; ++i) epl::mbarrier_init(epl::shared_address(full + i), 1);
    epl::mbarrier_init_fence();
  }
  __syncthreads();

  auto issue = [&](int tile) {
    if (producer && tile < tiles) {
      const int slot = tile % STAGES;
      const unsigned bar = epl::shared_address(full + slot);
      const int k0 = tile * epl::kSwizzleRowElems;
      epl::mbarrier_arrive_expect_bytes(bar, kStageBytes);
      epl::tma_load_2d(s + slot * kStage, a_tiles, k0, m0, bar);
      epl::tma_load_2d(s + slot * kStage + kElemsA, b_tiles, k0, n0, bar);
    }
  };
  for (int i = 0; i < kLead; ++i) issue(i);

  epl::WarpTile<16, BN> w;
  w.zero();
  for (int i = 0; i < tiles; ++i) {
    const int slot = i % STAGES;
    epl::mbarrier_wait_parity(epl::shared_address(full + slot), static_cast<unsigned>((i / STAGES) & 1));
    __syncthreads();
    issue(i + kLead);
    const __nv_bfloat16* sa = s + slot * kStage + group * 64 * epl::kSwizzleRowElems;
    const unsigned long long da = epl::wgmma_desc_sw128(sa), db = epl::wgmma_desc_sw128(s + slot * kStage + kElemsA);
    epl::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) epl::Wgmma<BN>::mma(w.acc[0], da + 2 * kk, db + 2 * kk);
    epl::wgmma_commit();
    epl::wgmma_wait<1>();
  }
  epl::wgmma_wait<0>();
  w.store(c, m0 + group * 64 + warp * 16, n0, m, n);
}
