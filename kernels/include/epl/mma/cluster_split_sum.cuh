// epl/mma/cluster_split_sum.cuh — the k splits of one output tile, one block each of a cluster,
// sum their fp32 accumulators through distributed shared memory and store the tile once, rounded
// (sm_90 and later): split-K with no workspace in global memory and no second launch.
//
// Scope: a cluster of SPLITS blocks of 256 threads (two warpgroups, each an epl::WarpTile<16, BN>
// of mma.sync's m16n8 layout: BN / 4 column pairs a thread, a "unit" each), cluster rank s the
// block of split s. Phases: every block writes its accumulators unrounded to its own shared
// memory as float2 [BN / 4 units][256 threads] (a warp's stores of one unit are 256 contiguous
// bytes: no bank conflict); one cluster barrier (arrive.release, wait.acquire); block s then sums
// units [s U / SPLITS, (s + 1) U / SPLITS) of every thread position over ranks 0..SPLITS-1 in rank
// order, reading the peers' shared memory (8-byte loads), and stores the sums rounded once to bf16
// at the tile's positions; a second cluster barrier keeps every block's shared memory alive until
// its peers have read it.
// Cost: 128 x BN x 4 bytes of shared memory (the k loop's stage buffers, free again), 2 cluster
// barriers, (SPLITS - 1) / SPLITS of the tile read from peers by each block. Determinism: a fixed
// rank order in every sum, whichever block finishes first: bitwise reproducible for a split count.
#pragma once

#include <cuda_bf16.h>

#include "warp_tile.cuh"
#include "../target.cuh"

namespace epl {

#if defined(EPL_HAS_CLUSTERS)

// Every thread of every block of the cluster calls it, converged, after its k loop; smem: at least
// 128 * BN * 4 bytes no thread still reads (the caller's block barrier makes the k loop's free).
// Rows m0 + [0, 128) and columns n0 + [0, BN) of c [rows x cols], row-major; the warpgroup g, warp
// w of a thread holds rows m0 + 64 g + 16 w + [0, 16) of the tile, as WarpTile::store writes them.
template <int BN, int SPLITS>
__device__ __forceinline__ void cluster_split_tile_sum(const WarpTile<16, BN>& w, unsigned char* smem,
                                                       __nv_bfloat16* __restrict__ c, int m0, int n0,
                                                       int rows, int cols) {
  constexpr int kUnits = 2 * WarpTile<16, BN>::kN;  // column pairs (fragment j, half h) a thread
  static_assert(kUnits % SPLITS == 0, "every rank sums the same number of units");
  const int tid = static_cast<int>(threadIdx.x);
  float2* red = reinterpret_cast<float2*>(smem);
#pragma unroll
  for (int j = 0; j < WarpTile<16, BN>::kN; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) red[(2 * j + h) * 256 + tid] = make_float2(w.acc[0][j][2 * h], w.acc[0][j][2 * h + 1]);
  __cluster_barrier_arrive();  // every split's partials in its shared memory, visible cluster-wide
  __cluster_barrier_wait();

  const int rank = static_cast<int>(__clusterRelativeBlockRank());
  const int lane = tid & 31;
  const int row0 = m0 + (tid >> 7) * 64 + ((tid >> 5) & 3) * 16 + (lane >> 2);
  const bool pairs = (cols & 1) == 0;
  constexpr int kMine = kUnits / SPLITS;
#pragma unroll 4
  for (int i = 0; i < kMine; ++i) {
    const int u = rank * kMine + i;
    float2 sum = make_float2(0.0f, 0.0f);
#pragma unroll
    for (int s = 0; s < SPLITS; ++s) {
      const float2 v = *static_cast<const float2*>(__cluster_map_shared_rank(red + u * 256 + tid, s));
      sum.x += v.x;
      sum.y += v.y;
    }
    const int r = row0 + (u & 1) * 8;
    const int col = n0 + (u >> 1) * 8 + ((lane & 3) << 1);
    if (r < rows) {
      __nv_bfloat16* p = c + static_cast<long long>(r) * cols + col;
      if (pairs && col + 1 < cols) {
        *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(sum.x, sum.y);
      } else {
        if (col < cols) p[0] = __float2bfloat16_rn(sum.x);
        if (col + 1 < cols) p[1] = __float2bfloat16_rn(sum.y);
      }
    }
  }
  __cluster_barrier_arrive();  // no block may exit (freeing its shared memory) while a peer reads it
  __cluster_barrier_wait();
}

#endif  // EPL_HAS_CLUSTERS

}  // namespace epl
