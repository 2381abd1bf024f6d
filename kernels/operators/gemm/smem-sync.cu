// Record:       gemm/smem-sync (catalog/realizations/gemm/smem-sync.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ (nt) or A [m, k] · B [k, n] (nn), bf16 in,
//               fp32 accumulate, bf16 out.
// Phases:       per k tile of 64: 1. every thread loads its 16-byte chunks of the A and B tiles
//               (LDG, zeros past the edges) and stores them swizzled to shared memory (STS);
//               (nn: B's 64 x BN slab as BN / 64 [64 k x 64 n] sub-tiles, epl::OperandTileKN);
//               2. __syncthreads; 3. each warp runs 4 k16 steps of ldmatrix (nn: B through
//               ldmatrix.trans) + mma.sync on its
//               WM x WN tile; 4. __syncthreads before the buffer is overwritten. Then the epilogue
//               rounds to bf16 once and stores the tile.
// Tiles:        BM x BN per block of 256 threads (8 warps, 2 along m x 4 along n), BK = 64.
// Shared mem:   (BM + BN) * 64 * 2 bytes dynamic (one stage).
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  k % 8 == 0 (16-byte rows; nn rows of B take element loads unless n % 8 == 0); 1-D grid of ceil_div(m, BM) * ceil_div(n, BN) blocks.
#include <epl/mma/warp_tile.cuh>
#include <epl/tile/order.cuh>
#include <epl/util.cuh>
#include <epl/tile/stage.cuh>

template <int BM, int BN, epl::GemmLayout L>
__global__ void __launch_bounds__(256)
gemm_smem_sync(const __nv_bfloat16* __restrict__ a,  // [m, k]
               const __nv_bfloat16* __restrict__ b,  // [n, k] (nt) or [k, n] (nn)
               __nv_bfloat16* __restrict__ c,        // [m, n]
               int m, int n, int k) {
  constexpr int kThreads = 256, kWarpsN = 4;
  using TileA = epl::OperandTile<BM, kThreads>;
  using TileB = typename epl::OperandTileB<L, BN, kThreads>::type;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* sa = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* sb = sa + TileA::kElems;

  const epl::TileCoord o = epl::block_tile_origin<BM, BN, 8>(m, n);
  const int m0 = o.m, n0 = o.n;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int wm0 = (warp / kWarpsN) * (BM / 2), wn0 = (warp % kWarpsN) * (BN / kWarpsN);

  epl::WarpTile<BM / 2, BN / kWarpsN> w;
  w.zero();
  for (int k0 = 0; k0 < k; k0 += epl::kSwizzleRowElems) {
    typename TileA::Regs ra;
    typename TileB::Regs rb;
    TileA::load(ra, a, m0, k0, m, k);
    TileB::load(rb, b, n0, k0, n, k);
    TileA::store(ra, sa);
    TileB::store(rb, sb);
    __syncthreads();
    w.template mma_k64<L>(sa, sb, wm0, wn0);
    __syncthreads();
  }
  w.store(c, m0 + wm0, n0 + wn0, m, n);
}
