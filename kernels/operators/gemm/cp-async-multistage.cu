// Record:       gemm/cp-async-multistage (catalog/realizations/gemm/cp-async-multistage.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ, bf16 in, fp32 accumulate, bf16 out (nt).
// Phases:       prologue: issue cp.async (LDGSTS, zero-filled past the edges) for k tiles
//               0 .. STAGES-2, one commit group each. Per k tile i: 1. wait until tile i's group
//               landed (cp.async.wait_group STAGES-2), barrier; 2. issue tile i + STAGES - 1 into
//               the slot tile i - 1 used (free: every warp passed the barrier after reading it),
//               commit (an empty group past the end keeps the count); 3. ldmatrix + mma.sync on
//               slot i % STAGES. Then the epilogue rounds to bf16 once and stores the tile.
// Tiles:        BM x BN per block of 256 threads (8 warps, 2 along m x 4 along n), BK = 64.
// Shared mem:   STAGES * (BM + BN) * 64 * 2 bytes dynamic.
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  sm_80+; k % 8 == 0 (16-byte rows); 1-D grid of ceil_div(m, BM) * ceil_div(n, BN).
#include <epl/mma/warp_tile.cuh>
#include <epl/pipeline/cp_async.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>

template <int BM, int BN, int STAGES>
__global__ void __launch_bounds__(256)
gemm_cp_async_multistage(const __nv_bfloat16* __restrict__ a,  // [m, k]
                         const __nv_bfloat16* __restrict__ b,  // [n, k]
                         __nv_bfloat16* __restrict__ c,        // [m, n]
                         int m, int n, int k) {
  constexpr int kThreads = 256, kWarpsN = 4;
  constexpr int kElemsA = BM * epl::kSwizzleRowElems;
  constexpr int kStage = (BM + BN) * epl::kSwizzleRowElems;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);

  const epl::TileCoord o = epl::block_tile_origin<BM, BN, 8>(m, n);
  const int m0 = o.m, n0 = o.n;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int wm0 = (warp / kWarpsN) * (BM / 2), wn0 = (warp % kWarpsN) * (BN / kWarpsN);
  const int tiles = epl::ceil_div(k, epl::kSwizzleRowElems);

  auto issue = [&](int tile) {
    epl::cp_async_stage<BM, BN, kThreads>(s + (tile % STAGES) * kStage, a, b, m0, n0,
                                         tile * epl::kSwizzleRowElems, m, n, k, tile < tiles);
  };
#pragma unroll
  for (int i = 0; i < STAGES - 1; ++i) issue(i);

  epl::WarpTile<BM / 2, BN / kWarpsN> w;
  w.zero();
  for (int i = 0; i < tiles; ++i) {
    epl::cp_async_wait<STAGES - 2>();
    __syncthreads();
    issue(i + STAGES - 1);
    const __nv_bfloat16* cur = s + (i % STAGES) * kStage;
    w.mma_k64(cur, cur + kElemsA, wm0, wn0);
  }
  epl::cp_async_wait<0>();
  w.store(c, m0 + wm0, n0 + wn0, m, n);
}
