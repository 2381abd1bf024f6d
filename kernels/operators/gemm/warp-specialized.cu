// Record:       gemm/warp-specialized (catalog/realizations/gemm/warp-specialized.yaml)
// Contract:     gemm — C [m, n] = A [m, k] · B [n, k]ᵀ, bf16 in, fp32 accumulate, bf16 out (nt).
// Phases:       a persistent grid (one block of 384 threads an SM, or a cluster of two) walks the
//               output tiles in the grouped order (epl/tile/persistent.cuh). Warpgroup 0 is the
//               producer: it gives registers back (setmaxnreg.dec to 40) and its thread 0 loads, for
//               every tile and k tile in turn, the A box (BM x 64) and the B box (BN x 64) into the
//               next slot of a ring of STAGES (epl/pipeline/stage_ring.cuh), after waiting for the
//               slot's empty barrier and announcing its bytes on the full barrier. Warpgroups 1 and 2
//               are consumers (setmaxnreg.inc to 232): per k tile wait for the full barrier, four
//               wgmma.m64n{BN}k16, commit, wait until one group runs, then each warp releases the
//               previous k tile's slot (lane r arrives on cluster rank r's empty barrier). No block
//               barrier after the start. Epilogue: wait 0, release, epl::WarpTile<16, BN> stores.
// Consumers:    GROUPS_PER_TILE 2 (cooperative): both warpgroups share one 128 x BN tile, 64 rows
//               each, and consume every slot. 1 (ping-pong): tiles are 64 x BN and the warpgroups
//               take the walk's tiles alternately, their main loops in turns (epl/pipeline/turns.cuh:
//               the parity waits need the positions waited in order), so one's epilogue runs under
//               the other's main loop.
// Cluster:      CLUSTER 2: the two blocks take the two tile columns of one 128 (or 64) x 2BN cluster
//               tile and share A: each loads half of the A box with .multicast::cluster into both
//               (epl/cluster/multicast.cuh); a slot's empty barrier counts both blocks' releases.
// Ring:         position p = j · tiles_k + kt (the walk's j-th tile, k tile kt), slot p % STAGES,
//               parity (p / STAGES) & 1, continuous across tiles on both sides; every position is
//               consumed by the warpgroups of its tile only, which alone it counts releases of.
// Shared mem:   STAGES · (BM + BN) · 128 bytes of tiles (1024-byte aligned), then the ring's 2 · STAGES
//               mbarriers and the 2 turn mbarriers.
// Determinism:  bitwise (a fixed k order in every output).
// Constraints:  sm_90a; k % 8 == 0 (a tensor map's row stride is a multiple of 16 bytes).
#include <epl/block/tensor_copy.cuh>
#include <epl/block/warpgroup.cuh>
#include <epl/cluster/multicast.cuh>
#include <epl/mma/warp_tile.cuh>
#include <epl/mma/wgmma.cuh>
#include <epl/pipeline/stage_ring.cuh>
#include <epl/pipeline/turns.cuh>
#include <epl/tile/persistent.cuh>
#include <epl/tile/swizzle.cuh>
#include <epl/util.cuh>

template <int GROUPS_PER_TILE, int BN, int STAGES, int CLUSTER>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(3 * epl::kWarpgroupThreads, 1)
gemm_warp_specialized(const __grid_constant__ epl::TensorMap a_tiles,  // a [m, k], box BM / CLUSTER x 64
                      const __grid_constant__ epl::TensorMap b_tiles,  // b [n, k], box BN x 64
                      __nv_bfloat16* __restrict__ c,                   // [m, n]
                      int m, int n, int k) {
  static_assert(GROUPS_PER_TILE == 1 || GROUPS_PER_TILE == 2, "cooperative (2) or ping-pong (1)");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "A shared by at most a pair of blocks");
  constexpr bool kPingpong = GROUPS_PER_TILE == 1;
  constexpr int BM = 64 * GROUPS_PER_TILE;
  constexpr int kRow = epl::kSwizzleRowElems;  // k elements of a tile row (128 bytes)
  constexpr int kElemsA = BM * kRow;
  constexpr int kStage = (BM + BN) * kRow;
  constexpr unsigned kStageBytes = kStage * 2;  // whole boxes, zeros past the matrix included
  constexpr int kSliceA = BM / CLUSTER;        // rows of A each block of a cluster loads for both
  // The consumer warps that read a slot, in each block of the cluster (one release each).
  constexpr unsigned kReleases = (kPingpong ? 4 : 8) * CLUSTER;
  // 384 threads at ptxas's 168 a thread (launch bounds, one block an SM) is the pool the
  // warpgroups split: 128 · 40 + 256 · 232 = 384 · 168.
  constexpr int kProducerRegs = 40, kConsumerRegs = 232;
  static_assert(epl::kWarpgroupThreads * (kProducerRegs + 2 * kConsumerRegs) <= 3 * epl::kWarpgroupThreads * 168,
                "the consumers' registers must come from the launch's pool");
  using Ring = epl::StageRing<STAGES, CLUSTER>;
  using Turns = epl::Turns<2>;  // ping-pong: the consumers' main loops in turns

  extern __shared__ __align__(1024) unsigned char smem[];
  __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);
  Ring& ring = *reinterpret_cast<Ring*>(smem + STAGES * kStageBytes);
  Turns& turns = *reinterpret_cast<Turns*>(smem + STAGES * kStageBytes + sizeof(Ring));

  const unsigned rank = CLUSTER == 1 ? 0u : __clusterRelativeBlockRank();
  const int tiles_k = epl::ceil_div(k, kRow);
  // Cluster tiles: tile columns in pairs for CLUSTER 2 (block rank r takes column 2·t.n + r).
  const epl::PersistentTiles<8> walk{epl::ceil_div(m, BM), epl::ceil_div(epl::ceil_div(n, BN), CLUSTER),
                                     static_cast<int>(blockIdx.x) / CLUSTER, static_cast<int>(gridDim.x) / CLUSTER};
  const int tiles = walk.count();
  const int wg = epl::warpgroup_index();

  if (threadIdx.x == 0) {
    epl::tma_prefetch_map(a_tiles);
    epl::tma_prefetch_map(b_tiles);
    ring.init(kReleases);
    if constexpr (kPingpong) turns.init(4);  // lane 0 of each warp of the group passes
    epl::mbarrier_init_fence();
  }
  // Every barrier of the cluster initialized before any copy or arrival reaches it.
  if constexpr (CLUSTER == 1) {
    __syncthreads();
  } else {
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
  }

  if (wg == 0) {
    epl::warpgroup_release_registers<kProducerRegs>();
    if (threadIdx.x == 0) {
      for (int j = 0; j < tiles; ++j) {
        const epl::TileCoord t = walk.tile(j);
        // The first rows loaded, clamped into the matrix: a slice or B box wholly past the edge
        // (the odd last column of a cluster tile, the second A slice of a short m) then reads the
        // last row and zeros, which feed only outputs the epilogue does not store.
        const int ya = min(t.m * BM + static_cast<int>(rank) * kSliceA, m - 1);
        const int yb = min((t.n * CLUSTER + static_cast<int>(rank)) * BN, n - 1);
        for (int kt = 0; kt < tiles_k; ++kt) {
          const int p = j * tiles_k + kt;
          const int k0 = kt * kRow;
          __nv_bfloat16* slot = s + Ring::slot(p) * kStage;
          ring.acquire(p, kStageBytes);
          if constexpr (CLUSTER == 1) {
            epl::tma_load_2d(slot, a_tiles, k0, ya, ring.full_bar(p));
          } else {
            epl::tma_load_2d_multicast(slot + rank * kSliceA * kRow, a_tiles, k0, ya, ring.full_bar(p),
                                       static_cast<unsigned short>((1u << CLUSTER) - 1));
          }
          epl::tma_load_2d(slot + kElemsA, b_tiles, k0, yb, ring.full_bar(p));
        }
      }
    }
  } else {
    epl::warpgroup_claim_registers<kConsumerRegs>();
    const int consumer = wg - 1;
    const int warp = (static_cast<int>(threadIdx.x) >> 5) & 3;
    const unsigned lane = threadIdx.x & 31u;
    const int rows0 = kPingpong ? 0 : consumer * 64;  // this warpgroup's first row of the tile
    epl::WarpTile<16, BN> w;
    for (int j = kPingpong ? consumer : 0, round = 0; j < tiles; j += kPingpong ? 2 : 1, ++round) {
      const epl::TileCoord t = walk.tile(j);
      // Ping-pong: this group skips the other's positions, and a parity wait is only sound once
      // every earlier position of the slot has been waited; the turns order the main loops so.
      if constexpr (kPingpong) turns.wait(consumer, round);
      w.zero();
      int p = j * tiles_k;
      for (int kt = 0; kt < tiles_k; ++kt, ++p) {
        ring.wait(p);
        __syncwarp();  // converged for the .aligned wgmma instructions after the spin
        const __nv_bfloat16* sa = s + Ring::slot(p) * kStage + rows0 * kRow;
        const unsigned long long da = epl::wgmma_desc_sw128(sa);
        const unsigned long long db = epl::wgmma_desc_sw128(s + Ring::slot(p) * kStage + kElemsA);
        epl::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) epl::Wgmma<BN>::mma(w.acc[0], da + 2 * kk, db + 2 * kk);
        epl::wgmma_commit();
        epl::wgmma_wait<1>();  // k tile kt - 1's wgmma have read their slot
        if (kt > 0 && lane < CLUSTER) ring.release(p - 1, lane);
      }
      if constexpr (kPingpong) {
        if (lane == 0) turns.pass(consumer);  // every position of this tile waited
      }
      epl::wgmma_wait<0>();
      if (lane < CLUSTER) ring.release(p - 1, lane);
      w.store(c, t.m * BM + rows0 + warp * 16, (t.n * CLUSTER + static_cast<int>(rank)) * BN, m, n);
    }
  }
  if constexpr (CLUSTER > 1) {
    // No block leaves while its peer may still arrive on its barriers or multicast into it.
    __syncwarp();
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
  }
}
