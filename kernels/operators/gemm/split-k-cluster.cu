// Records:      gemm/split-k-cluster (layout nt) and gemm/split-k-cluster-nn
//               (catalog/realizations/gemm/), one record a B layout, as gemm/tma-wgmma's.
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ (nt) or A · B [k, n] (nn), bf16 in, fp32
//               accumulate, bf16 out.
// Phases:       one launch, grid [tiles, SPLITS], clusters of the SPLITS blocks of one tile
//               (compile-time __cluster_dims__(1, SPLITS, 1)): block (t, s) runs rung 4's k loop
//               (epl::TmaWgmmaLoop) over k tiles [s · T / SPLITS, (s + 1) · T / SPLITS) of output
//               tile t (T = ceil_div(k, 64)); after a block barrier frees the stage buffers, the
//               cluster sums its accumulators through distributed shared memory in rank order and
//               each block stores 1/SPLITS of the tile, rounded once (epl::cluster_split_tile_sum).
// Tiles:        128 x BN per block of 256 threads (2 warpgroups of 64 x BN), BK = 64.
// Bytes:        A and B read once over all splits; C written once (2 · m · n). No workspace: the
//               partials cross the cluster's shared memory, never DRAM or L2.
// Shared mem:   STAGES * (128 + BN) * 128 bytes of tiles, then STAGES mbarriers; the sum reuses the
//               first 128 · BN · 4 bytes.
// Determinism:  bitwise for a split count (a fixed k order inside each split, rank order across).
// Constraints:  sm_90a; k % 8 == 0, and n % 8 == 0 in nn (a tensor map's row stride is a multiple
//               of 16 bytes).
#include <epl/mma/cluster_split_sum.cuh>
#include <epl/mma/tma_wgmma_loop.cuh>
#include <epl/mma/warp_tile.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>

template <int BN, int STAGES, int SPLITS, epl::GemmLayout L = epl::GemmLayout::nt>
__global__ void __cluster_dims__(1, SPLITS, 1) __launch_bounds__(256)
gemm_split_k_cluster(const __grid_constant__ epl::TensorMap a_tiles,  // a [m, k], box 128 x 64
                     const __grid_constant__ epl::TensorMap b_tiles,  // b [n, k], box BN x 64; nn: b [k, n], 64 x 64
                     __nv_bfloat16* __restrict__ c,                   // [m, n]
                     int m, int n, int k) {
  using Loop = epl::TmaWgmmaLoop<BN, STAGES, L>;
  static_assert(128 * BN * 4 <= STAGES * Loop::kStageBytes, "the sum fits in the stage buffers");
  extern __shared__ __align__(1024) unsigned char smem[];
  const epl::TileCoord o = epl::block_tile_origin<Loop::kBM, BN, 8>(m, n);  // from blockIdx.x
  const int tiles = epl::ceil_div(k, epl::kSwizzleRowElems);
  const int split = static_cast<int>(blockIdx.y);  // the block's cluster rank: clusters are (1, SPLITS, 1)
  const int first = split * tiles / SPLITS, last = (split + 1) * tiles / SPLITS;

  epl::WarpTile<16, BN> w;
  Loop::accumulate(w, smem, a_tiles, b_tiles, o.m, o.n, first, last - first);
  __syncthreads();  // both warpgroups' wgmma have read their last stage: the buffers are free
  epl::cluster_split_tile_sum<BN, SPLITS>(w, smem, c, o.m, o.n, m, n);
}
