// Record:       gemm/split-k (catalog/realizations/gemm/split-k.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ, bf16 in, fp32 accumulate, bf16 out (nt).
// Phases:       launch 1, grid [tiles, splits]: block (t, s) runs rung 4's k loop
//               (epl::TmaWgmmaLoop: TMA boxes on per-stage mbarriers, two warpgroups of wgmma) over
//               k tiles [s · T / splits, (s + 1) · T / splits) of output tile t (T = ceil_div(k, 64)),
//               and stores its fp32 accumulators unrounded to slice s of the workspace
//               partials [splits][m][n]. Launch 2: out = bf16(Σ_s partials[s]), s ascending
//               (epl::device::sum_slices), rounded once.
// Tiles:        128 x BN per block of 256 threads (2 warpgroups of 64 x BN), BK = 64; the splits of a
//               tile differ in their k tiles by at most one (a split of none stores zeros).
// Bytes:        A and B read once over all splits (each k tile by one split), plus
//               4 · splits · m · n written by launch 1 and read by launch 2, and 2 · m · n written.
// Shared mem:   launch 1: STAGES * (128 + BN) * 128 bytes of tiles, then STAGES mbarriers.
// Determinism:  bitwise (a fixed k order inside each split, a fixed split order in the sum).
// Constraints:  sm_90a; k % 8 == 0 (a tensor map's row stride is a multiple of 16 bytes).
#include <epl/device/sum_slices.cuh>
#include <epl/mma/tma_wgmma_loop.cuh>
#include <epl/mma/warp_tile.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>

template <int BN, int STAGES>
__global__ void __launch_bounds__(256)
gemm_split_k_partials(const __grid_constant__ epl::TensorMap a_tiles,  // a [m, k], box 128 x 64
                      const __grid_constant__ epl::TensorMap b_tiles,  // b [n, k], box BN x 64
                      float* __restrict__ partials,                    // [gridDim.y][m][n]
                      int m, int n, int k) {
  using Loop = epl::TmaWgmmaLoop<BN, STAGES>;
  extern __shared__ __align__(1024) unsigned char smem[];
  const epl::TileCoord o = epl::block_tile_origin<Loop::kBM, BN, 8>(m, n);  // from blockIdx.x
  const int group = static_cast<int>(threadIdx.x) >> 7;
  const int warp = (static_cast<int>(threadIdx.x) >> 5) & 3;
  const int tiles = epl::ceil_div(k, epl::kSwizzleRowElems);
  const int split = static_cast<int>(blockIdx.y), splits = static_cast<int>(gridDim.y);
  const int first = split * tiles / splits, last = (split + 1) * tiles / splits;  // split · tiles fits an int

  epl::WarpTile<16, BN> w;
  Loop::accumulate(w, smem, a_tiles, b_tiles, o.m, o.n, first, last - first);
  w.store(partials + static_cast<long long>(split) * m * n, o.m + group * 64 + warp * 16, o.n, m, n);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
gemm_split_k_sum(const float* __restrict__ partials,  // [splits][m][n], from gemm_split_k_partials
                 __nv_bfloat16* __restrict__ c,       // [m, n]
                 int m, int n, int splits) {
  epl::device::sum_slices<BLOCK>(partials, splits, static_cast<long long>(m) * n, c);
}
