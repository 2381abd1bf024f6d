// Record:       gemm/cp-async-wgmma (catalog/realizations/gemm/cp-async-wgmma.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ, bf16 in, fp32 accumulate, bf16 out (nt).
// Phases:       prologue: cp.async (LDGSTS, zero-filled past the edges) of k tiles 0 .. L-1,
//               L = STAGES - 2, one commit group each, into 128-byte-swizzled slots. Per k tile i:
//               1. cp.async.wait_group L - 1 (tile i landed for this thread), fence.proxy.async
//               (cp.async writes → wgmma's async-proxy reads), barrier; 2. issue tile i + L into
//               the slot of tile i - 2 (every warpgroup's wgmma on it finished: wait_group 1 at
//               tile i - 1, before this barrier), commit; 3. warpgroup g issues four
//               wgmma.m64n{BN}k16 on its 64 rows of A and all BN rows of B, commits, and waits
//               until at most one wgmma group (this tile's) is running. Then wait 0 and the
//               epilogue: rounded once to bf16, stored by epl::WarpTile<16, BN>.
// Tiles:        128 x BN per block of 256 threads (2 warpgroups of 64 x BN), BK = 64.
// Shared mem:   STAGES * (128 + BN) * 128 bytes dynamic, 1024-byte aligned.
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  sm_90a; k % 8 == 0 (16-byte rows); 1-D grid of ceil_div(m, 128) * ceil_div(n, BN).
#include <epl/mma/warp_tile.cuh>
#include <epl/mma/wgmma.cuh>
#include <epl/pipeline/cp_async.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>

template <int BN, int STAGES>
__global__ void __launch_bounds__(256)
gemm_cp_async_wgmma(const __nv_bfloat16* __restrict__ a,  // [m, k]
                    const __nv_bfloat16* __restrict__ b,  // [n, k]
                    __nv_bfloat16* __restrict__ c,        // [m, n]
                    int m, int n, int k) {
  constexpr int kThreads = 256, BM = 128, kLead = STAGES - 2;
  static_assert(STAGES >= 3, "one slot for the running wgmma group, one landing, one in flight");
  constexpr int kElemsA = BM * epl::kSwizzleRowElems;
  constexpr int kStage = (BM + BN) * epl::kSwizzleRowElems;
  extern __shared__ __align__(1024) unsigned char smem[];
  __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);

  const epl::TileCoord o = epl::block_tile_origin<BM, BN, 8>(m, n);
  const int m0 = o.m, n0 = o.n;
  const int group = static_cast<int>(threadIdx.x) >> 7;       // warpgroup: rows 64 * group ..
  const int warp = (static_cast<int>(threadIdx.x) >> 5) & 3;  // warp within it: 16 rows each
  const int tiles = epl::ceil_div(k, epl::kSwizzleRowElems);

  auto issue = [&](int tile) {
    epl::cp_async_stage<BM, BN, kThreads>(s + (tile % STAGES) * kStage, a, b, m0, n0,
                                         tile * epl::kSwizzleRowElems, m, n, k, tile < tiles);
  };
#pragma unroll
  for (int i = 0; i < kLead; ++i) issue(i);

  epl::WarpTile<16, BN> w;  // the warpgroup accumulators, in mma.sync's m16n8 layout
  w.zero();
  for (int i = 0; i < tiles; ++i) {
    epl::cp_async_wait<kLead - 1>();
    epl::fence_proxy_async_shared();
    __syncthreads();
    issue(i + kLead);
    const __nv_bfloat16* sa = s + (i % STAGES) * kStage + group * 64 * epl::kSwizzleRowElems;
    const __nv_bfloat16* sb = s + (i % STAGES) * kStage + kElemsA;
    const unsigned long long da = epl::wgmma_desc_sw128(sa), db = epl::wgmma_desc_sw128(sb);
    epl::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      epl::Wgmma<BN>::mma(w.acc[0], da + 2 * kk, db + 2 * kk);  // + 32 bytes a k16 step
    }
    epl::wgmma_commit();
    epl::wgmma_wait<1>();
  }
  epl::wgmma_wait<0>();
  epl::cp_async_wait<0>();
  w.store(c, m0 + group * 64 + warp * 16, n0, m, n);
}
